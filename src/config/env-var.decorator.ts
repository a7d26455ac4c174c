import 'reflect-metadata';

export interface EnvVarDoc {
  name: string;
  default: string;
  description: string;
}

const DOCS = Symbol('env-var-docs');

/** Records a variable's default and meaning so the README table can be checked against the class. */
export function EnvVar(description: string, defaultValue = '(unset)'): PropertyDecorator {
  return (target, key) => {
    const docs = (Reflect.getMetadata(DOCS, target) as EnvVarDoc[] | undefined) ?? [];
    Reflect.defineMetadata(DOCS, [...docs, { name: String(key), default: defaultValue, description }], target);
  };
}

export function envVarDocs(cls: abstract new () => object): EnvVarDoc[] {
  return (Reflect.getMetadata(DOCS, cls.prototype as object) as EnvVarDoc[] | undefined) ?? [];
}
