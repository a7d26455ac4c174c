import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Db } from '../../database/db.js';
import { type ClassifiedAnswer, recordAnswers } from './host-dns.sql.js';
import { type HostProbe, recordProbes } from './host-http.sql.js';
import { applyScopeRules } from './host-scope.sql.js';
import { type DomainHostCounts, type HostCounts, upsertSeenHosts, writing } from './host-writes.js';
import { recordZones, type ZoneAnswer } from './wildcard.sql.js';

/**
 * The one write path for hosts and what is known of them: every writer (scans, the CT follower, host knowledge,
 * scope rules, imports) opens its transaction here. The store takes the transaction's id before anything else, so
 * the live stream and the change feed count it as a writer from its start (see the horizon) and no caller can
 * forget to; the writer it hands over is the only way to its statements.
 */
@Injectable()
export class HostStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async transaction<T>(work: (w: HostWriter) => Promise<T>): Promise<T> {
    await this.letWaitingReadsFirst();
    return this.db.transaction(async (m) => {
      await writing(m);
      return work(new HostWriter(m));
    });
  }

  /**
   * Before a write opens its transaction, requests already waiting for a connection get theirs: a transaction
   * holds its connection to the end, and on the embedded database that is the only one, so a worker writing page
   * after page would otherwise keep every request waiting. Bounded, so a steady stream of reads cannot stall the
   * writer either.
   */
  private async letWaitingReadsFirst(): Promise<void> {
    const pool = Db.of(this.db).primary;
    for (let waited = 0; pool.waitingCount > 0 && waited < MAX_YIELD_MS; waited += YIELD_STEP_MS) {
      await new Promise((resolve) => setTimeout(resolve, YIELD_STEP_MS));
    }
  }
}

const YIELD_STEP_MS = 5;
const MAX_YIELD_MS = 500;

/**
 * A transaction of the store. Its statements are set-based, one each; `manager` runs the caller's own statements
 * (a scan's row, a CT log's position) in the same transaction, so a page or a slice commits whole.
 */
export class HostWriter {
  constructor(readonly manager: EntityManager) {}

  /** One domain's hosts seen now (see upsertSeenHosts): `source` yields (host, sources) given $2, $1 being the domain. */
  async seen(domainId: number, source: string, params: unknown[]): Promise<HostCounts> {
    const [counts] = await upsertSeenHosts(
      this.manager,
      `SELECT $1::int AS domain_id, s.host, s.sources FROM (${source}) s`,
      [domainId, ...params],
    );
    return { newCount: counts?.newCount ?? 0, reactivated: counts?.reactivated ?? 0 };
  }

  /**
   * Hosts of many domains seen now, in one statement (see upsertSeenHosts): `source` yields (domain_id, host,
   * sources) from `params`. Returns the domains that gained or got back a host.
   */
  seenAcross(source: string, params: unknown[]): Promise<DomainHostCounts[]> {
    return upsertSeenHosts(this.manager, source, params);
  }

  /** DNS answers with their takeover verdicts (see recordAnswers); returns how many changes they raised. */
  answers(domainId: number, answers: ClassifiedAnswer[]): Promise<number> {
    return recordAnswers(this.manager, domainId, answers);
  }

  /** HTTP probes (see recordProbes); returns how many changes they raised. */
  probes(domainId: number, probes: HostProbe[]): Promise<number> {
    return recordProbes(this.manager, domainId, probes);
  }

  /** Wildcard answers of zones (see recordZones); returns how many zones were newly found wildcard. */
  zones(domainId: number, zones: ZoneAnswer[]): Promise<number> {
    return recordZones(this.manager, domainId, zones);
  }

  /** The domains' hosts judged again against their exclusion rules (see applyScopeRules); returns how many moved. */
  applyScope(domainIds: number[]): Promise<number> {
    return applyScopeRules(this.manager, domainIds);
  }
}
