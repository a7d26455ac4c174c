import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What a scrape reads from elsewhere at that moment: the pool, and how far the worker is behind its schedule. */
export interface MetricsSources {
  pool(): { total: number; idle: number; waiting: number };
  /** Seconds the longest-due enabled domain has waited for its scan (0 when none is due). */
  workerLagSeconds(): Promise<number>;
  /** Entries each followed CT log is behind its last read tree size (logs read at least once). */
  ctLag(): Promise<{ url: string; lag: number }[]>;
}

/**
 * The service's Prometheus metrics, in a registry of this app's own (tests run several apps in one process).
 * Scans and ticks are counted always (a few increments per scan); request timing and /metrics exist only
 * with METRICS=on (see instrumentHttp).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly scans = new Counter({
    name: 'scans_total',
    help: 'Scans finished by this process, by outcome and trigger',
    labelNames: ['status', 'trigger'] as const,
    registers: [this.registry],
  });

  readonly hostsDiscovered = new Counter({
    name: 'hosts_discovered_total',
    help: 'Hosts recorded for the first time by scans of this process',
    registers: [this.registry],
  });

  readonly tickDuration = new Histogram({
    name: 'worker_tick_duration_seconds',
    help: 'Duration of the worker ticks that ran scan slices',
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });

  readonly ctEntries = new Counter({
    name: 'ct_entries_read_total',
    help: 'Certificate Transparency log entries read and recorded by this process, by log',
    labelNames: ['log'] as const,
    registers: [this.registry],
  });

  readonly ctNames = new Counter({
    name: 'ct_names_matched_total',
    help: 'Certificate names under a tracked root found in CT log entries by this process, by log',
    labelNames: ['log'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'db_pool_connections',
      help: 'Connections of the database pool by state (in_use, idle) and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const { total, idle, waiting } = sources.pool();
        this.set({ state: 'in_use' }, total - idle);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
    new Gauge({
      name: 'worker_lag_seconds',
      help: 'How long the longest-due enabled domain has waited for its scheduled scan',
      registers: [this.registry],
      async collect() {
        this.set(await sources.workerLagSeconds().catch(() => 0));
      },
    });
    new Gauge({
      name: 'ct_log_lag_entries',
      help: 'Entries a followed CT log is behind its last read tree size, whichever process follows it',
      labelNames: ['log'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { url, lag } of await sources.ctLag().catch(() => [])) this.set({ log: url }, lag);
      },
    });
  }
}
