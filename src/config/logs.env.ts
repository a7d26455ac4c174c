import type { OnOff } from './env-transforms.js';
import { EnumVar, OnOffVar, StringVar } from './env-var.decorator.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Logs and metrics. */
export class LogsEnvironment {
  @EnumVar({
    values: LOG_LEVELS,
    default: 'info',
    description: 'Log verbosity: fatal, error, warn, info, debug or trace.',
  })
  LOG_LEVEL: LogLevel;

  @OnOffVar({
    default: 'off',
    description: 'Serve Prometheus metrics at /metrics (outside the API prefix): on or off.',
  })
  METRICS: OnOff;

  @StringVar({
    secret: true,
    minLength: 16,
    message: 'METRICS_TOKEN must be at least 16 characters',
    description:
      'When set, /metrics answers only requests with Authorization: Bearer <METRICS_TOKEN> (16 characters or more).',
  })
  METRICS_TOKEN?: string;
}
