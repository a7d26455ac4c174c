import { CronTime } from 'cron';

export type OnOff = 'on' | 'off';

export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
export const toLower = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

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

/** Five fields, or six with seconds, that the scheduler (the cron package) accepts. */
export function isCronExpression(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\S+(\s+\S+){4,5}$/.test(value.trim())) return false;
  try {
    new CronTime(value);
    return true;
  } catch {
    return false;
  }
}
