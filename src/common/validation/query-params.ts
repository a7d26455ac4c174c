import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  Matches,
  MinLength,
  ValidateBy,
} from 'class-validator';
import { NO_CONTROL_PATTERN } from './name-patterns.js';

/**
 * Query parameters that pair their check with their OpenAPI description, so the two cannot drift.
 * Query strings arrive as strings (or arrays when repeated); each transform converts only a value it can
 * read exactly and leaves anything else for the validator to reject with a message naming the parameter.
 */

const single = (value: unknown): value is string => typeof value === 'string';
const NO_CONTROL = new RegExp(NO_CONTROL_PATTERN);
const NON_NEGATIVE = /^\d{1,15}$/;
const DIGITS = /^\d+$/;
export const MAX_OFFSET = 2_147_483_647;
export const MAX_HOURS = 87_600;
export const DEFAULT_HOURS = 24;

/**
 * `limit`: an integer from 1; above the maximum it is clamped, and meta reports the limit used. A larger value is
 * accepted, so the schema has no `maximum` (a client or proxy that enforced one would refuse what the service
 * takes); the maximum is in the description.
 */
export function LimitParam(defaultValue: number, max: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      default: defaultValue,
      description: `Rows per page (default ${defaultValue}, maximum ${max}): a larger value is clamped to ${max}`,
    }),
    // Any run of digits is read, however long: past 2^53 Number() is inexact or Infinity, and both clamp to max.
    Transform(({ value }: { value: unknown }) =>
      single(value) && DIGITS.test(value) ? Math.min(Number(value), max) : value,
    ),
    // Checked in this order (applyDecorators registers them so): the form first, then the value.
    IsInt({
      message: (a) =>
        single(a.value)
          ? `limit must be a whole number written in digits only, such as ${defaultValue}`
          : 'limit must be given once',
    }),
    Min(1, { message: `limit must be at least 1 (a larger value than ${max} is clamped to ${max})` }),
  );
}

/** `offset`: rows to skip, default 0. */
export function OffsetParam(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Rows to skip' }),
    Transform(({ value }: { value: unknown }) => (single(value) && NON_NEGATIVE.test(value) ? Number(value) : value)),
    Max(MAX_OFFSET, { message: `offset must be an integer from 0 to ${MAX_OFFSET}` }),
    IsInt({ message: `offset must be an integer from 0 to ${MAX_OFFSET}` }),
  );
}

/** An integer parameter from `min` to `max` (its message says so), with its default. */
function BoundedIntParam(
  name: string,
  bounds: { min: number; max: number; default: number; description: string },
): PropertyDecorator {
  const message = `${name} must be an integer from ${bounds.min} to ${bounds.max}`;
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: bounds.min,
      maximum: bounds.max,
      default: bounds.default,
      description: bounds.description,
    }),
    Transform(({ value }: { value: unknown }) => (single(value) && NON_NEGATIVE.test(value) ? Number(value) : value)),
    Min(bounds.min, { message }),
    Max(bounds.max, { message }),
    IsInt({ message }),
  );
}

/** `hours`: the look-back window, default 24; `since` overrides it. */
export const HoursParam = (): PropertyDecorator =>
  BoundedIntParam('hours', {
    min: 1,
    max: MAX_HOURS,
    default: DEFAULT_HOURS,
    description: 'Look-back window in hours (ignored when since is given)',
  });

/** `days`: a look-back window in days. */
export const DaysParam = (defaultValue: number, max: number, description: string): PropertyDecorator =>
  BoundedIntParam('days', { min: 1, max, default: defaultValue, description });

// ISO 8601 date or date-time, 'T' or a space between, 'Z' or 'z' or an offset (+hh:mm, +hhmm); none is UTC.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,12}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * The timestamp as PostgreSQL reads it, written as one canonical UTC string with six fraction digits
 * (`2026-01-31T12:00:00.000000Z`, which cursors and event ids use too), or null where PostgreSQL would refuse it or
 * the instant falls outside 1970–9999. As in PostgreSQL: an offset up to ±15:59, second 60 (a leap second, with no fraction
 * once rounded) is the next minute's first, and fraction digits past the sixth round to the microsecond.
 */
export function normalizeTimestamp(value: string): string | null {
  const m = ISO_8601.exec(value);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', fraction = '', , sign, oh = '00', om = '00'] = m;
  if (+y < 1970 || +h > 23 || +mi > 59 || +sec > 60 || +oh > 15 || +om > 59) return null;
  const day = new Date(Date.UTC(+y, +mo - 1, +d));
  if (day.getUTCFullYear() !== +y || day.getUTCMonth() !== +mo - 1 || day.getUTCDate() !== +d) return null;
  const offsetMs = (sign === '-' ? -1 : 1) * (+oh * 60 + +om) * 60_000;
  const micros = roundHalfEven(Number(`0.${fraction || '0'}`) * 1e6); // 1e6 when it rounds up to the next second
  if (+sec === 60 && micros !== 0) return null; // a leap second has no fraction in PostgreSQL
  const instant = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec) - offsetMs + (micros === 1e6 ? 1000 : 0));
  const year = instant.getUTCFullYear();
  if (year < 1970 || year > 9999) return null;
  return `${instant.toISOString().slice(0, 19)}.${String(micros % 1e6).padStart(6, '0')}Z`;
}

/** C's rint() as PostgreSQL rounds fractional seconds with it: halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** A timestamp parameter (`since`, `before_ts`): ISO 8601, read as UTC when it has no offset. Kept as text. */
export function TimestampParam(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', format: 'date-time', description }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (single(value) ? (normalizeTimestamp(value.trim()) ?? value) : value)),
    // A value the transform could not normalise is left as it came, and normalising it again fails.
    ValidateBy(
      {
        name: 'isTimestamp',
        validator: { validate: (v: unknown) => typeof v === 'string' && normalizeTimestamp(v) === v },
      },
      { message: (a) => `${a.property} must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z` },
    ),
    IsString({ message: (a) => `${a.property} must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z` }),
  );
}

/** One of a fixed set of values, with a default. */
export function EnumParam<T extends string>(
  values: readonly T[],
  defaultValue: T | undefined,
  description: string,
): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', enum: values, default: defaultValue, description }),
    ...(defaultValue === undefined ? [IsOptional()] : []),
    IsIn(values, { message: (a) => `${a.property} must be one of: ${values.join(', ')}` }),
  );
}

/** `true` or `false` (also 1 or 0). */
export function BoolParam(defaultValue: boolean | undefined, description: string): PropertyDecorator {
  const parse = (value: unknown) => {
    if (!single(value)) return value;
    const v = value.toLowerCase();
    return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : value;
  };
  return applyDecorators(
    ApiPropertyOptional({ type: 'boolean', default: defaultValue, description }),
    ...(defaultValue === undefined ? [IsOptional()] : []),
    Transform(({ value }: { value: unknown }) => parse(value)),
    IsBoolean({ message: (a) => `${a.property} must be true or false` }),
  );
}

/** Free text (a substring to search for); matched literally, never as a pattern. */
export function TextParam(opts: {
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  description: string;
}): PropertyDecorator {
  const max = opts.maxLength ?? 253;
  const min = opts.minLength ?? 1;
  const length = (a: { property: string }) => `${a.property} must be ${min} to ${max} characters`;
  return applyDecorators(
    (opts.required ? ApiProperty : ApiPropertyOptional)({
      type: 'string',
      minLength: min,
      maxLength: max,
      pattern: NO_CONTROL_PATTERN,
      description: opts.description,
    }),
    Transform(({ value }: { value: unknown }) => (single(value) ? value.trim() : value)),
    MinLength(min, { message: length }),
    MaxLength(max, { message: length }),
    // A NUL or other control character can be no part of a host name, and PostgreSQL refuses NUL in text.
    Matches(NO_CONTROL, { message: (a) => `${a.property} must not contain control characters` }),
    IsString({ message: (a) => `${a.property} must be given once, as text` }),
    opts.required ? IsDefined({ message: (a) => `${a.property} is required` }) : IsOptional(),
  );
}

/**
 * A comma list of values from a fixed set (`type=host_new,dns_changed`), read into an array; an unknown or empty
 * part is refused with a message naming the parameter and the set.
 */
export function EnumListParam(values: readonly string[], description: string, example: string): PropertyDecorator {
  const message = (a: { property: string }) => `${a.property} must be a comma list of: ${values.join(', ')}`;
  return applyDecorators(
    // An array sent as one comma list (style form, explode false), which is what generated clients then send.
    ApiPropertyOptional({
      type: 'string',
      isArray: true,
      enum: [...values],
      minItems: 1,
      style: 'form',
      explode: false,
      description,
      example: example.split(','),
    } as ApiPropertyOptions),
    IsOptional(),
    // Each value once, in the order first named: `ips,ips` is `ips`.
    Transform(({ value }: { value: unknown }) =>
      single(value) ? [...new Set(value.split(',').map((v) => v.trim()))] : value,
    ),
    IsIn(values, { each: true, message }),
    IsString({ each: true, message }),
  );
}
