import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { type VersionSource } from '../common/http/conditional-get.js';
import { Environment } from '../config/environment.js';
import { DatabaseInfo } from './database-info.js';
import { PgListener } from './pg-listener.js';
import { rows } from './sql.js';
import { Db } from './db.js';

/** The channel the data-version trigger notifies (named in migration 1765900000000, which is frozen history). */
export const DATA_VERSION_CHANNEL = 'subdomain_monitor_data';

/** Rows of data_versions kept: pruning removes the oldest past twice this many. */
const KEPT_VERSIONS = 5000;

/** A count and a sum of data_versions' numbers. */
interface Rows {
  n: number;
  sum: bigint;
}

/** How often a lagging replica is asked how far it has replayed: soon at first, then less often while it lags. */
const REPLICA_FIRST_LOOK_MS = 5;
const REPLICA_MAX_LOOK_MS = 1000;

/**
 * What this process knows of the data's version: a number that moves whenever a committed write may have changed
 * what a read answers (migration DataVersion), never before the write is visible. Answers computed once the
 * number is N stay right until it moves, so they can be kept under N (see ResponseCache).
 *
 * It moves on:
 * - each NOTIFY a writing transaction sends as it commits: on a server through a LISTEN connection of this
 *   process's own, so writes of every process count; on the embedded database (one backend, which delivers a
 *   notice to the connection that committed) on this process's own pooled connections;
 * - a LISTEN connection (re)opened, since notices were lost while it was down;
 * - a look at data_versions every DATA_VERSION_POLL_SECONDS that finds rows it has not seen (a lost notice, a
 *   CLI's write on the embedded database). Rows are only added, so their count and sum change with every commit.
 *   A notice names its row (migration DataVersionNotices): the rows a look finds that notices have named moved
 *   the version already, and do not move it again.
 *
 * It starts with the first question: a CLI never asks, and opens nothing.
 *
 * With read replicas, reads answer for an older version until the replicas have replayed the writes that moved it:
 * see forReads.
 */
@Injectable()
export class DataVersion implements OnModuleDestroy, VersionSource {
  private readonly logger = new Logger('DataVersion');
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly listener: PgListener;
  private value = 0;
  private started = false;
  /** The count and sum of data_versions' rows at the last look; null before the first. */
  private seen: Rows | null = null;
  /** The rows notices have named since the last look began (count and sum), or null after a notice named none. */
  private heard: Rows | null = { n: 0, sum: 0n };
  private timer: NodeJS.Timeout | null = null;
  private looking = false;
  /** The latest version the read replicas are known to hold (see forReads); -1 before the first is known. */
  private replicasHold = -1;
  private following = false;
  private closed = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly info: DatabaseInfo,
    private readonly env: Environment,
  ) {
    this.listener = new PgListener(() => Db.of(db).primaryConfig, DATA_VERSION_CHANNEL, this.logger, {
      notification: (payload) => this.notified(payload),
      connected: () => this.move(),
      wanted: () => true,
    });
  }

  /** The version now. */
  current(): number {
    if (!this.started) this.start();
    return this.value;
  }

  /**
   * The version that what a read answers now stands for, or null when none is known: what may be kept under a
   * version (ResponseCache, ListCounts) is computed under this one.
   *
   * Without read replicas it is the version: reads run on the primary, which has every write that moved it. With
   * them, a read runs on a replica that may not have replayed those writes yet, and an answer computed there, kept
   * under the new version, would stand until the next write. So each time the version moves, the primary's WAL
   * position is read (after the move: at or past the commits that made it) and the replicas are asked until each
   * has replayed that far (pg_last_wal_replay_lsn); only then do reads answer for that version. Until the first
   * such version is known (a replica down, or not a standby), nothing is kept: answers are computed on each
   * request, from a replica as before.
   */
  forReads(): number | null {
    const current = this.current();
    if (!this.replicated()) return current;
    if (this.replicasHold !== current) void this.followReplicas();
    return this.replicasHold < 0 ? null : this.replicasHold;
  }

  /** Calls `listener` each time the version moves, until the returned function is called. */
  onMove(listener: () => void): () => void {
    this.events.on('move', listener);
    return () => this.events.off('move', listener);
  }

  /** Looks at data_versions now; resolves once the version has moved if it saw a commit it had not. */
  async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    // Notices that arrive while the look runs are for the next look: this one may or may not see their rows.
    const heard = this.heard;
    this.heard = { n: 0, sum: 0n };
    try {
      const [found] = await rows<{ n: number; sum: string }>(
        this.db,
        `SELECT count(*)::int AS n, coalesce(sum(v), 0)::text AS sum FROM data_versions`,
      );
      const now: Rows = { n: found.n, sum: BigInt(found.sum) };
      const was = this.seen;
      this.seen = now;
      // Moved already: nothing new, or just the rows notices named.
      const same = (n: number, sum: bigint) => now.n === n && now.sum === sum;
      const known =
        was !== null && (same(was.n, was.sum) || (heard !== null && same(was.n + heard.n, was.sum + heard.sum)));
      if (!known) this.move();
      if (now.n > 2 * KEPT_VERSIONS) {
        await rows(this.db, `DELETE FROM data_versions WHERE v < (SELECT max(v) FROM data_versions) - $1`, [
          KEPT_VERSIONS,
        ]);
      }
    } catch (e) {
      this.logger.warn(`could not read the data version: ${(e as Error).message}`);
      this.move(); // nothing known: answers are computed again
    } finally {
      this.looking = false;
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener.close();
  }

  /**
   * Follows the replicas until they hold the current version (see forReads): one loop at a time, asking soon after
   * a move and less often while a replica lags, is down or is no standby (pg_last_wal_replay_lsn() is null). A
   * position is awaited until it is replayed, even when the version moves meanwhile: under constant writes a newer
   * position, read each time, would always be ahead of a replica that trails by a moment.
   */
  private async followReplicas(): Promise<void> {
    if (this.following) return;
    this.following = true;
    try {
      let wanted = this.value;
      let position = await this.primaryPosition();
      for (let wait = REPLICA_FIRST_LOOK_MS; !this.closed;) {
        if (position && (await this.replayed(position))) {
          this.replicasHold = Math.max(this.replicasHold, wanted);
          if (this.replicasHold === this.value) return;
          wanted = this.value;
          position = await this.primaryPosition();
          wait = REPLICA_FIRST_LOOK_MS;
          continue;
        }
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
        wait = Math.min(wait * 2, REPLICA_MAX_LOOK_MS);
        if (!position) {
          wanted = this.value;
          position = await this.primaryPosition();
        }
      }
    } finally {
      this.following = false;
    }
  }

  private async primaryPosition(): Promise<string | null> {
    try {
      const { rows: found } = await Db.of(this.db).primary.query<{ lsn: string }>(
        `SELECT pg_current_wal_lsn()::text AS lsn`,
      );
      return found[0].lsn;
    } catch {
      return null;
    }
  }

  /** Whether every replica has replayed the primary's WAL up to `position`. */
  private async replayed(position: string): Promise<boolean> {
    const answers = await Promise.all(
      Db.of(this.db).replicas.map((pool) =>
        pool
          .query<{ ok: boolean | null }>(`SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok`, [position])
          .then(({ rows: [row] }) => row.ok === true)
          .catch(() => false),
      ),
    );
    return answers.every(Boolean);
  }

  /** A notice of a committed write: the version moves now; the row it names is one the next look expects. */
  private notified(payload: string): void {
    if (this.heard !== null && /^\d{1,19}$/.test(payload)) {
      this.heard = { n: this.heard.n + 1, sum: this.heard.sum + BigInt(payload) };
    } else {
      this.heard = null; // a notice without its row's number: the next look moves on any row it finds new
    }
    this.move();
  }

  private move(): void {
    this.value++;
    this.events.emit('move');
    if (this.replicated()) void this.followReplicas();
  }

  /** Whether reads go to read replicas (their pools exist once the data source is up). */
  private replicated(): boolean {
    return this.db.isInitialized && Db.of(this.db).replicas.length > 0;
  }

  private start(): void {
    this.started = true;
    if (this.info.target.kind === 'server') {
      void this.listener.listen();
    } else {
      this.listenEmbedded(Db.of(this.db).primary);
    }
    void this.look();
    this.timer = setInterval(() => void this.look(), this.env.DATA_VERSION_POLL_SECONDS * 1000).unref();
  }

  /**
   * The embedded database is one backend shared by every connection: one LISTEN makes it deliver each notice, to
   * the connection whose commit sent it. This process hears those its own connections receive.
   */
  private listenEmbedded(pool: Pool): void {
    const heard = new WeakSet<PoolClient>();
    pool.on('acquire', (client) => {
      if (heard.has(client)) return;
      heard.add(client);
      client.on('notification', (message) => {
        if (message.channel === DATA_VERSION_CHANNEL) this.notified(message.payload ?? '');
      });
    });
    rows(this.db, `LISTEN ${DATA_VERSION_CHANNEL}`).catch((e: Error) =>
      this.logger.warn(`could not listen for data versions: ${e.message}`),
    );
  }
}
