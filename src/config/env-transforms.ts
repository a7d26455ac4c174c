import { Transform } from 'class-transformer';
import { IsIn } from 'class-validator';
import { EnvVar } from './env-var.decorator.js';

export type OnOff = 'on' | 'off';

export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
export const toLower = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;
/** An on/off switch: documented like every variable, case-insensitive, only on or off. */
export function OnOffVar(description: string, defaultValue: OnOff): PropertyDecorator {
  const decorators = [EnvVar(description, defaultValue), Transform(toLower), IsIn(['on', 'off'])];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

/** A comma list whose items keep their case (URLs, environment variable names). */
export const toCaseList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : value;

/** A comma list, lower-cased. */
export const toList = ({ value }: { value: unknown }) =>
  toCaseList({ value: typeof value === 'string' ? value.toLowerCase() : value });
