import { Injectable, type PipeTransform } from '@nestjs/common';
import { HOST_NAME_PATTERN, MAX_NAME_LENGTH } from './name-patterns.js';
import { rootDomainProblem } from './root-domain.js';
import { AppError } from '../errors/app-error.js';

/** A UUID in its text form, any case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path segment that must be a root domain: 400 invalid_domain otherwise. */
@Injectable()
export class RootDomainPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = rootDomainProblem(value);
    if (problem) throw new AppError('invalid_domain', `domain ${problem}`);
    return value;
  }
}

const HOST_NAME = new RegExp(HOST_NAME_PATTERN);

/**
 * A path segment that must be a host name as the service records them (lower case, two labels or more, at most
 * 253 characters): 400 invalid_domain otherwise, the contract's code for a malformed name.
 */
@Injectable()
export class HostNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (value.length > MAX_NAME_LENGTH || !HOST_NAME.test(value)) {
      throw new AppError('invalid_domain', 'host must be a host name in lower case, such as api.example.com');
    }
    return value;
  }
}

/** A platform slug in the path; anything that cannot be a slug is an unknown platform, found without a query. */
@Injectable()
export class PlatformSlugPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(value)) {
      throw new AppError('unknown_platform', 'Not a tracked platform; GET /platforms lists them');
    }
    return value;
  }
}

/** A path segment that must be a UUID: 400 invalid_id otherwise. */
@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new AppError('invalid_id', 'id must be a UUID');
    return value.toLowerCase();
  }
}
