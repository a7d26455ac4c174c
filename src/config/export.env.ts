import { IntVar } from './env-var.decorator.js';

/** GET /export: how many stream at once, and how long they wait. */
export class ExportEnvironment {
  @IntVar({
    default: 4,
    min: 1,
    max: 100,
    description:
      'Most exports (GET /export) one process streams at once; on a PostgreSQL server at most DATABASE_POOL_SIZE − 2, on the embedded database at most 2, so key checks and small reads always find a connection.',
  })
  EXPORT_MAX_CONCURRENT: number;

  @IntVar({
    default: 5,
    min: 0,
    max: 60,
    description:
      'Seconds a further export waits for one to end before it is answered 503 service_unavailable with Retry-After.',
  })
  EXPORT_WAIT_SECONDS: number;

  @IntVar({
    default: 60,
    min: 1,
    max: 3600,
    description: 'Seconds an export waits for its client to take data before it is aborted and its slot freed.',
  })
  EXPORT_IDLE_SECONDS: number;
}
