import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DatabaseInfo } from '../database/database.module.js';
import { PgListener } from '../database/pg-listener.js';
import { rows } from '../database/sql.js';
import { Db } from '../database/db.js';

/** The PostgreSQL channel that carries "a scan committed new hosts" between processes. */
export const NEW_HOSTS_CHANNEL = 'subdomain_monitor_new_hosts';

/** What a signal says: which domain (and its platform) got new hosts. Streams skip signals for other filters. */
export interface NewHostsSignal {
  domain_id: number;
  platform: string;
}

/**
 * Tells live streams that new hosts were committed. A scan publishes after its commit: listeners in this
 * process hear it at once, and on a PostgreSQL server a NOTIFY carries it to every other process, whose
 * LISTEN connection (one per process, opened with the first listener) hands it on. The embedded database is
 * one process: the in-process signal is all it needs. A lost signal only delays a stream until its next poll.
 */
@Injectable()
export class NewHostSignal implements OnModuleDestroy {
  private readonly logger = new Logger('NewHostSignal');
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly listener: PgListener;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly info: DatabaseInfo,
  ) {
    this.listener = new PgListener(() => Db.of(db).primaryConfig, NEW_HOSTS_CHANNEL, this.logger, {
      notification: (payload) => {
        try {
          this.events.emit('signal', JSON.parse(payload) as NewHostsSignal);
        } catch {
          // A payload that is not ours: ignore it.
        }
      },
      // Hosts committed while no connection listened: streams look again.
      connected: () => this.events.emit('signal', null),
      wanted: () => this.events.listenerCount('signal') > 0,
    });
  }

  /**
   * Announces new hosts of these domains, after their commit: to this process's listeners, and on a server
   * through NOTIFY to every process's (this one's may hear it twice). One statement however many domains (a CT
   * batch may span hundreds). Never throws: a stream's poll is the fallback.
   */
  async publish(...domainIds: number[]): Promise<void> {
    if (domainIds.length === 0) return;
    try {
      // The domains' platforms, and on a server the NOTIFY that carries each.
      const notify = this.info.target.kind === 'server';
      const found = await rows<NewHostsSignal>(
        this.db,
        `SELECT id AS domain_id, platform_slug AS platform
                ${notify ? `, pg_notify($2, json_build_object('domain_id', id, 'platform', platform_slug)::text)` : ''}
           FROM domains WHERE id = ANY ($1::int[])`,
        notify ? [domainIds, NEW_HOSTS_CHANNEL] : [domainIds],
      );
      for (const { domain_id, platform } of found) {
        const signal: NewHostsSignal = { domain_id, platform };
        this.events.emit('local', signal);
        this.events.emit('signal', signal);
      }
    } catch (e) {
      this.logger.warn(`could not signal new hosts of domains ${domainIds.join(', ')}: ${(e as Error).message}`);
    }
  }

  /**
   * Calls `listener` on every signal, from any process, until the returned function is called; null means
   * signals may have been missed (the LISTEN connection was lost): look anyway.
   */
  subscribe(listener: (signal: NewHostsSignal | null) => void): () => void {
    this.events.on('signal', listener);
    if (this.info.target.kind === 'server') void this.listen();
    return () => this.events.off('signal', listener);
  }

  /** Calls `listener` on the signals of this process's own scans. */
  subscribeLocal(listener: (signal: NewHostsSignal) => void): () => void {
    this.events.on('local', listener);
    return () => this.events.off('local', listener);
  }

  async onModuleDestroy(): Promise<void> {
    await this.listener.close();
  }

  /** Opens the LISTEN connection once; a lost one is opened again with back-off while anyone listens. */
  private listen(): Promise<void> {
    return this.listener.listen();
  }
}
