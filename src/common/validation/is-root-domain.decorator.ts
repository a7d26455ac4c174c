import { ApiProperty } from '@nestjs/swagger';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { ROOT_DOMAIN_SCHEMA } from './name-patterns.js';
import { rootDomainProblem } from './root-domain.js';

/**
 * A bare lowercase root domain; failures are answered with 400 invalid_domain. It also gives the property its
 * syntax in the OpenAPI document (the pattern the check runs), beside what the property's own @ApiProperty says.
 */
export function IsRootDomain(options?: ValidationOptions): PropertyDecorator {
  const documented = ApiProperty({ ...ROOT_DOMAIN_SCHEMA });
  return (target, propertyName) => {
    documented(target, propertyName);
    registerDecorator({
      name: 'isRootDomain',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && rootDomainProblem(value) === null,
        defaultMessage: (args) => {
          const problem = typeof args?.value === 'string' ? rootDomainProblem(args.value) : 'must be a string';
          return `${args?.property} ${problem ?? 'is invalid'}`;
        },
      },
    });
  };
}
