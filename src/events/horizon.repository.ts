import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { GenerateSql } from '../database/generate-sql.js';

/** How long a transaction may run before it writes and still count as a possible writer of hosts. */
const WRITER_GRACE_SECONDS = 10;

/**
 * The moment before which every host is committed. Scans write first_seen_at = now(), their transaction's
 * start, so a host not yet committed belongs to a transaction still open that started no later than its
 * first_seen_at: the oldest such start (or now, when none is open) is the horizon. Events stop short of it, so
 * a slow commit never lands behind a position a client already has.
 *
 * Transactions that can write hosts: those holding a transaction id (every write takes one; scan persistence
 * takes it with its first statement, see writing() in hosts/store), and young ones that may be about to.
 * Long read-only ones (an export) do not hold events back. Other roles' sessions show no xact_start unless the
 * service's role may read all statistics (pg_read_all_stats): run every process under one role.
 *
 * It is read in a statement of its own, before the hosts: a statement's snapshot is taken before it reads
 * pg_stat_activity, so a writer that committed in between would be neither visible nor counted as open.
 */
const HORIZON_SQL = `SELECT ${isoSql('h')} AS ts, extract(epoch FROM now() - h)::float8 AS lag_seconds,
        ${isoSql('now()')} AS now
   FROM (SELECT least(now(), min(xact_start)) AS h FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND (backend_xid IS NOT NULL OR xact_start > now() - interval '${WRITER_GRACE_SECONDS} seconds')) x`;

export interface Horizon {
  ts: string;
  /** How far behind now the horizon is: an open transaction holding events back. */
  lag_seconds: number;
  /** The database's now() when the horizon was read: every transaction committed by then started before it. */
  now: string;
}

/** Where the horizon is now: read by the live stream and GET /events, always on the primary. */
@Injectable()
export class HorizonRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql()
  async horizon(): Promise<Horizon> {
    const [row] = await rows<Horizon>(this.db, HORIZON_SQL);
    return row;
  }
}
