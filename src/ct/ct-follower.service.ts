import { HostResolver } from '../intel/dns/host-resolver.service.js';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { readPathOrUrl } from '../common/http/bounded-fetch.js';
import { newWorkerId, thisHostWorkers, workerAlive } from '../common/worker-id.js';
import { Environment } from '../config/environment.js';
import { Metrics } from '../metrics/metrics.js';
import { NewHostSignal } from '../events/new-host-signal.js';
import { entryNames } from './ct-entry.js';
import { sleep } from './ct-http.js';
import { type CtLogSpec, namedLogs, parseLogList } from './ct-log-spec.js';
import { CtLogsRepository, type HeldLog, type HostsByDomain, LeaseLost } from './ct-logs.repository.js';
import type { CtLogReader } from './log-reader.js';
import { Rfc6962Client } from './rfc6962-client.js';
import { RootMatcher } from './root-matcher.js';
import { StaticCtClient } from './static-ct-client.js';

/** Seconds a follower holds a log without renewing; renewed every third of it, so a dead holder's log is free in 30 s. */
export const CT_LEASE_SECONDS = 30;
/** Pages that have arrived recorded together at most, in one transaction. */
const BATCH_PAGES = 8;
/** How often the tracked roots are checked for changes. */
const ROOTS_CHECK_MS = 2000;
/** Waits after a failed round, growing with each failure in a row (seconds); the last repeats. */
const ERROR_BACKOFF_SECONDS = [5, 10, 30, 60, 120, 300];
/** How often CT_LOG_LIST is read again, and how soon after it could not be read. */
const LIST_REFRESH_MS = 24 * 3600_000;
const LIST_RETRY_MS = 15 * 60_000;

/**
 * Follows the Certificate Transparency logs of CT_LOGS (and of CT_LOG_LIST with `list`): one loop per log, which holds the log under a lease, reads
 * its tree head, then its new entries with CT_CONCURRENCY requests in flight, and records each page's matches and
 * the log's new position in one transaction. A failing log waits and tries again without touching the others.
 */
@Injectable()
export class CtFollower implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly workerId = newWorkerId();
  private readonly logger = new Logger('CtFollower');
  private readonly stopping = new AbortController();
  /** The logs followed now, by URL: each loop with the controller that ends it alone. */
  private readonly loops = new Map<string, { stop: AbortController; done: Promise<void> }>();
  private listLoop: Promise<void> | null = null;
  private matcher = new RootMatcher(new Map());
  private rootsVersion: string | null = null;
  private rootsCheckedAt = 0;
  /** The read of the roots in flight, which every log's page waits for. */
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly env: Environment,
    private readonly logs: CtLogsRepository,
    private readonly signal: NewHostSignal,
    private readonly metrics: Metrics,
    private readonly resolver: HostResolver,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const entries = this.env.CT_LOGS ?? [];
    if (entries.length === 0) return;
    const named = namedLogs(entries);
    try {
      await this.releaseOrphans();
    } catch (e) {
      // The loops claim their logs themselves once the database answers.
      this.logger.warn(`could not free this host's orphaned CT logs yet: ${(e as Error).message}`);
    }
    await this.follow(named);
    if (entries.some((e) => e.toLowerCase() === 'list')) this.listLoop = this.followList(named);
    this.logger.log(`following ${this.loops.size} CT log(s) as ${this.workerId}`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.listLoop;
    await Promise.all([...this.loops.values()].map((l) => l.done));
  }

  /** Follows exactly `wanted`: starts a loop for each new log, ends the loops of logs no longer wanted. */
  private async follow(wanted: CtLogSpec[]): Promise<void> {
    await this.logs.ensure(wanted).catch((e: Error) => {
      this.logger.warn(`could not register the CT logs yet: ${e.message}`);
    });
    const urls = new Set(wanted.map((l) => l.url));
    for (const [url, loop] of this.loops) {
      if (urls.has(url)) continue;
      loop.stop.abort();
      this.loops.delete(url);
    }
    for (const log of wanted) {
      if (this.loops.has(log.url)) continue;
      const stop = new AbortController();
      this.loops.set(log.url, {
        stop,
        done: this.followLog(log, AbortSignal.any([this.stopping.signal, stop.signal])),
      });
    }
  }

  /**
   * CT_LOGS=list: the usable and qualified logs of CT_LOG_LIST, with any logs CT_LOGS names, read at start and
   * again every day. A list that cannot be read leaves the logs as they were and is tried again sooner.
   */
  private async followList(named: CtLogSpec[]): Promise<void> {
    const stop = this.stopping.signal;
    while (!stop.aborted) {
      let wait = LIST_REFRESH_MS;
      try {
        const text = await readPathOrUrl(this.env.CT_LOG_LIST, {
          maxMiB: Math.min(this.env.FETCH_MAX_MB, 16),
          signal: AbortSignal.any([stop, AbortSignal.timeout(60_000)]),
        });
        const listed = parseLogList(text);
        const known = new Set(named.map((l) => l.url));
        await this.follow([...named, ...listed.filter((l) => !known.has(l.url))]);
        this.logger.log(`the CT log list names ${listed.length} usable or qualified log(s)`);
      } catch (e) {
        if (stop.aborted) break;
        wait = LIST_RETRY_MS;
        this.logger.warn(`could not read the CT log list (CT_LOG_LIST): ${(e as Error).message}`);
      }
      await sleep(wait, stop);
    }
  }

  /** One log's loop: never throws, ends when `stop` aborts and gives the log back. */
  private async followLog(log: CtLogSpec, stop: AbortSignal): Promise<void> {
    const { url } = log;
    let failures = 0;
    while (!stop.aborted) {
      const held = await this.logs.claim(url, this.workerId, CT_LEASE_SECONDS).catch(() => null);
      if (!held) {
        // Another worker holds it (or the database is away): look again well within its lease.
        await sleep(Math.min(this.env.CT_POLL_SECONDS, 10) * 1000, stop);
        continue;
      }
      const renew = setInterval(
        () => void this.logs.claim(url, this.workerId, CT_LEASE_SECONDS).catch(() => undefined),
        (CT_LEASE_SECONDS * 1000) / 3,
      );
      try {
        await this.followHeld(log, held, stop, () => (failures = 0));
      } catch (e) {
        if (stop.aborted) break; // a request cut short by shutdown is no failure of the log
        if (e instanceof LeaseLost) {
          this.logger.warn(`CT log ${url} was taken over by another worker`);
          continue;
        }
        const message = e instanceof Error ? e.message : String(e);
        const wait = ERROR_BACKOFF_SECONDS[Math.min(failures++, ERROR_BACKOFF_SECONDS.length - 1)];
        this.logger.warn(`CT log ${url}: ${message}; trying again in ${wait} s`);
        await this.logs.recordError(held.id, this.workerId, message).catch(() => undefined);
        await sleep(wait * 1000, stop);
      } finally {
        clearInterval(renew);
      }
    }
    const held = await this.logs.claim(url, this.workerId, CT_LEASE_SECONDS).catch(() => null);
    if (held) await this.logs.release(held.id, this.workerId).catch(() => undefined);
  }

  /** Reads the log while this worker holds it: returns only at shutdown, throws on a failure. */
  private async followHeld(log: CtLogSpec, held: HeldLog, stop: AbortSignal, progressed: () => void) {
    const client: CtLogReader =
      log.kind === 'static' ? new StaticCtClient(log.url, stop) : new Rfc6962Client(log.url, stop);
    while (!stop.aborted) {
      const treeSize = await client.treeSize();
      const start = this.env.CT_START === 'start' ? 0 : treeSize;
      let position = await this.logs.saveHead(held.id, this.workerId, treeSize, start, CT_LEASE_SECONDS);
      progressed();
      if (position < treeSize) position = await this.catchUp(client, held, position, treeSize, stop);
      if (position >= treeSize) await sleep(this.env.CT_POLL_SECONDS * 1000, stop);
    }
  }

  /**
   * Reads entries [from, to) in pages, CT_CONCURRENCY requests in flight, and records them in order: the first
   * page still to record together with the pages after it that have arrived meanwhile (up to BATCH_PAGES), in one
   * transaction with the position after them. A log read faster than its pages are recorded so costs a
   * transaction per several pages, not per page. Returns the position reached (less than `to` at shutdown).
   */
  private async catchUp(client: CtLogReader, log: HeldLog, from: number, to: number, stop: AbortSignal) {
    const queue: { from: number; to: number; leaves: Promise<Uint8Array[]>; arrived?: Uint8Array[] }[] = [];
    let next = from;
    const fill = () => {
      while (queue.length < this.env.CT_CONCURRENCY && next < to) {
        const page: (typeof queue)[number] = { from: next, to: client.pageEnd(next, to), leaves: Promise.resolve([]) };
        page.leaves = client.read(page.from, page.to);
        // Awaited in order below; a later page's failure must not go unhandled.
        page.leaves.then((leaves) => (page.arrived = leaves)).catch(() => undefined);
        queue.push(page);
        next = page.to;
      }
    };
    let position = from;
    fill();
    while (queue.length > 0 && !stop.aborted) {
      const first = queue.shift()!;
      const leaves = [...(await first.leaves)];
      const batch = { from: first.from, to: first.to };
      for (let pages = 1; pages < BATCH_PAGES && queue[0]?.arrived; pages++) {
        const page = queue.shift()!;
        leaves.push(...page.arrived!);
        batch.to = page.to;
      }
      fill();
      const found = await this.match(leaves);
      const gained = await this.logs.recordBatch(log.id, this.workerId, batch, found, CT_LEASE_SECONDS);
      position = batch.to;
      this.metrics.ctEntries.inc({ log: log.url }, batch.to - batch.from);
      this.metrics.ctNames.inc(
        { log: log.url },
        [...found.values()].reduce((n, hosts) => n + hosts.length, 0),
      );
      await this.signal.publish(...gained);
      for (const [domainId, hosts] of found) this.resolver.enqueue(domainId, hosts);
    }
    return position;
  }

  /** The hosts of tracked roots in a page of leaves, per domain. */
  private async match(leaves: Uint8Array[]): Promise<HostsByDomain> {
    await this.refreshRoots();
    const found = new Map<number, Set<string>>();
    for (const leaf of leaves) {
      let names: string[];
      try {
        names = entryNames(leaf).names;
      } catch {
        // An entry that is not a certificate we can read yields no names: the log goes on, never stuck on it.
        continue;
      }
      for (const name of names) {
        for (const { domainId, host } of this.matcher.match(name)) {
          let hosts = found.get(domainId);
          if (!hosts) found.set(domainId, (hosts = new Set()));
          hosts.add(host);
        }
      }
    }
    return new Map([...found].map(([domainId, hosts]) => [domainId, [...hosts]]));
  }

  /**
   * Reads the tracked roots again when they changed (checked at most every ROOTS_CHECK_MS). The logs followed in
   * this process share one read: a page of one log waits for the read another log's page started, and none is
   * matched against roots not read yet (its hosts would be lost, its position saved past them).
   */
  private refreshRoots(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.rootsCheckedAt < ROOTS_CHECK_MS) return Promise.resolve();
    this.refreshing = this.readRoots().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async readRoots(): Promise<void> {
    const version = await this.logs.rootsVersion();
    if (version !== this.rootsVersion) {
      const roots = await this.logs.roots();
      this.matcher = new RootMatcher(new Map(roots.map((r) => [r.domain, r.id])));
      this.rootsVersion = version;
    }
    this.rootsCheckedAt = Date.now();
  }

  /** Logs whose worker on this host died are freed at start, so they go on at once instead of after the lease. */
  private async releaseOrphans(): Promise<void> {
    const held = await this.logs.heldOnHost(thisHostWorkers());
    const dead = held.filter((l) => !workerAlive(l.workerId));
    if (dead.length > 0) await this.logs.releaseAll(dead.map((l) => l.id));
  }
}
