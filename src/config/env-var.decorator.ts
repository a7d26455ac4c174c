import 'reflect-metadata';
import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
} from 'class-validator';
import { isCronExpression, type OnOff, toCaseList, toInt, toList, toLower } from './env-transforms.js';

/** A row of the configuration page: test/readme.e2e-spec.ts checks the page against these. */
export interface EnvVarDoc {
  name: string;
  default: string;
  description: string;
  /** Holds a credential: never echoed in an error message, never printed. */
  secret: boolean;
}

/** What a variable's value can be once converted. */
export type EnvValue = string | number | (string | number)[];

/** What a variable states once, whatever its kind. */
export interface EnvVarOptions<T extends EnvValue> {
  description: string;
  /** The value when the variable is unset or empty; without one the property stays undefined. */
  default?: T;
  /** What the configuration page says instead of a default: the behaviour when the variable is unset. */
  unset?: string;
  secret?: boolean;
}

interface DeclaredVar {
  name: string;
  options: EnvVarOptions<EnvValue>;
  checks: PropertyDecorator[];
}

const VARS = Symbol('env-vars');

/** A property decorator that only fits a property of type T. */
export type EnvVarDecorator<T extends EnvValue> = <K extends string>(target: { [P in K]?: T }, key: K) => void;

/**
 * Declares a variable on a wing class: its default, description and secrecy, and its conversion and checks, which
 * class-validator runs in the order given (the first that fails names the variable). They take effect on the class
 * composeEnvironment builds from the wings.
 */
export function EnvVar<T extends EnvValue>(
  options: EnvVarOptions<T>,
  ...checks: PropertyDecorator[]
): EnvVarDecorator<T> {
  return (target, key) => {
    const declared = (Reflect.getOwnMetadata(VARS, target) as DeclaredVar[] | undefined) ?? [];
    const optional = options.default === undefined ? [IsOptional()] : [];
    Reflect.defineMetadata(VARS, [...declared, { name: key, options, checks: [...optional, ...checks] }], target);
  };
}

export function IntVar(options: EnvVarOptions<number> & { min: number; max: number }): EnvVarDecorator<number> {
  return EnvVar(options, Transform(toInt), IsInt(), Max(options.max), Min(options.min));
}

/** One word of a few, case-insensitive. */
export function EnumVar<V extends string>(options: EnvVarOptions<V> & { values: readonly V[] }): EnvVarDecorator<V> {
  return EnvVar(options, Transform(toLower), IsIn(options.values));
}

export function OnOffVar(options: EnvVarOptions<OnOff>): EnvVarDecorator<OnOff> {
  return EnumVar({ ...options, values: ['on', 'off'] });
}

/** A string; `message` is the wording for a value that fails `matches` or `minLength`. */
export function StringVar(
  options: EnvVarOptions<string> & {
    matches?: RegExp;
    message?: string;
    minLength?: number;
    maxLength?: number;
    lowerCase?: boolean;
  },
): EnvVarDecorator<string> {
  const { matches, message, minLength, maxLength } = options;
  return EnvVar(
    options,
    ...(options.lowerCase ? [Transform(toLower)] : []),
    IsString(),
    ...(maxLength === undefined ? [] : [MaxLength(maxLength)]),
    ...(minLength === undefined ? [] : [MinLength(minLength, { message })]),
    ...(matches ? [Matches(matches, { message })] : []),
  );
}

/** A comma list, lower-cased unless `keepCase`, each item matching `matches`. */
export function ListVar(
  options: EnvVarOptions<string[]> & { matches: RegExp; message: string; keepCase?: boolean },
): EnvVarDecorator<string[]> {
  const { matches, message, keepCase } = options;
  return EnvVar(options, Transform(keepCase ? toCaseList : toList), Matches(matches, { each: true, message }));
}

export function CronVar(options: EnvVarOptions<string>): EnvVarDecorator<string> {
  return EnvVar(
    options,
    ValidateBy(
      { name: 'isCron', validator: { validate: isCronExpression } },
      { message: '$property must be a cron expression of five fields, or six with seconds' },
    ),
  );
}

type Wing = abstract new () => object;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * One class with the variables of every wing as its own properties, each instance starting with every default.
 * The checks are applied to this class because class-validator and class-transformer read a class's metadata and
 * its ancestors', never that of classes mixed into it.
 */
export function composeEnvironment<W extends Wing[]>(...wings: W): new () => Intersection<InstanceType<W[number]>> {
  const vars = wings.flatMap(
    (wing) => (Reflect.getOwnMetadata(VARS, wing.prototype as object) as DeclaredVar[] | undefined) ?? [],
  );
  const twice = vars.find((v, i) => vars.findIndex((w) => w.name === v.name) !== i);
  if (twice) throw new Error(`${twice.name} is declared by two wings`);

  class Composed {
    constructor() {
      for (const { name, options } of vars) {
        if (options.default !== undefined) Reflect.set(this, name, structuredClone(options.default));
      }
    }
  }
  for (const { name, checks } of vars) checks.forEach((check) => check(Composed.prototype, name));
  Reflect.defineMetadata(VARS, vars, Composed.prototype);
  return Composed as new () => Intersection<InstanceType<W[number]>>;
}

/** The variables a wing or a composed class declares, in the order of their declaration. */
export function envVarDocs(cls: abstract new () => object): EnvVarDoc[] {
  const vars = (Reflect.getMetadata(VARS, cls.prototype as object) as DeclaredVar[] | undefined) ?? [];
  return vars.map(({ name, options }) => ({
    name,
    default: documented(options),
    description: options.description,
    secret: options.secret ?? false,
  }));
}

function documented({ default: value, unset }: EnvVarOptions<EnvValue>): string {
  if (value === undefined) return unset ?? '(unset)';
  return Array.isArray(value) ? value.join(',') : String(value);
}
