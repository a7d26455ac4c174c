import { IntVar } from './env-var.decorator.js';

/** The /subdomains/stream connections (SSE). */
export class StreamEnvironment {
  @IntVar({
    default: 15,
    min: 1,
    max: 3600,
    description: 'Seconds between heartbeat comments on an idle /subdomains/stream connection.',
  })
  STREAM_HEARTBEAT_SECONDS: number;

  @IntVar({
    default: 5,
    min: 1,
    max: 3600,
    description:
      "Seconds between a /subdomains/stream connection's own looks for new hosts; a scan's signal (LISTEN/NOTIFY) wakes it sooner.",
  })
  STREAM_POLL_SECONDS: number;

  @IntVar({
    default: 1000,
    min: 1,
    max: 100_000,
    description:
      'Most /subdomains/stream connections one process serves at once; more are answered 503 with Retry-After.',
  })
  STREAM_MAX_CLIENTS: number;

  @IntVar({
    default: 3,
    min: 1,
    max: 100_000,
    description:
      'Most /subdomains/stream connections one owner holds open at once, per process, over all their API keys and dashboard tabs (an operator key counts alone); more are answered 503.',
  })
  STREAM_MAX_PER_KEY: number;
}
