import type { Logger } from '@nestjs/common';
import pg from 'pg';

const RECONNECT_MS = [1000, 2000, 5000, 10_000];

export interface PgListenerEvents {
  /** A notice on the channel, with its payload. */
  notification(payload: string): void;
  /** LISTEN holds (again): notices sent while no connection listened are lost, so look anyway. */
  connected(): void;
  /** Whether to keep listening after the connection is lost. */
  wanted(): boolean;
}

/**
 * One LISTEN connection on a PostgreSQL server, of its own (a pooled connection cannot keep a LISTEN): opened once,
 * opened again with back-off when it is lost while still wanted, closed with the process.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private failures = 0;
  private closed = false;

  /** `options`: where to connect, asked at each connect (the pool's, which exists once the data source is up). */
  constructor(
    private readonly options: () => pg.ClientConfig,
    private readonly channel: string,
    private readonly logger: Logger,
    private readonly events: PgListenerEvents,
  ) {}

  /** Opens the connection unless it is open or opening; resolves when it listens (or has failed once). */
  listen(): Promise<void> {
    if (this.client || this.connecting || this.closed) return this.connecting ?? Promise.resolve();
    this.connecting = this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.options());
    client.on('notification', (message) => this.events.notification(message.payload ?? ''));
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      this.failures = 0;
      this.events.connected();
    } catch (e) {
      await client.end().catch(() => undefined);
      this.lost(null, e as Error);
    }
  }

  private lost(client: pg.Client | null, error: Error): void {
    if (client && this.client !== client) return;
    this.client = null;
    if (this.closed || !this.events.wanted()) return;
    const wait = RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)];
    if (this.failures === 1) this.logger.warn(`LISTEN connection lost (${error.message}); reconnecting`);
    setTimeout(() => void this.listen(), wait).unref();
  }
}
