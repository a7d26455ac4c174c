import { Injectable, Logger, Optional } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { answerSeen, type DnsAnswer } from '../hosts/model/dns-answer.js';
import { type ZoneAnswer, zoneOf } from '../hosts/store/wildcard.sql.js';
import { HostProber } from '../intel/probe/host-prober.service.js';
import { Metrics } from '../metrics/metrics.js';
import { NewHostSignal } from '../events/new-host-signal.js';
import { type ActiveScan, ScanStoreRepository } from './scan-store.repository.js';
import { CommandSource } from './sources/command.source.js';
import { mapLimit } from '../common/concurrency.js';
import { CrtshSource } from './sources/crtsh.source.js';
import { DnsBruteSource } from './sources/dns-brute.source.js';
import { PermuteSource } from './sources/permute.source.js';
import { PermuteRepository } from './permute/permute.repository.js';
import { DnsResolver, type Resolution } from '../intel/dns/dns-resolver.js';
import { normalizeAll } from './sources/host-name.js';
import { type DiscoverySource, SourceError, wildcardAnswers } from './sources/source.js';

/** Where a scan goes on: discovering with source n, checking liveness after a name, or committing. */
export type ScanProgress =
  | { phase: 'discover'; source: number; position: unknown }
  | { phase: 'resolve'; after: string | null }
  | { phase: 'commit' };

export type SliceOutcome =
  | { status: 'parked'; progress: ScanProgress }
  | { status: 'success'; found: number; new: number; reactivated: number; inactive: number; dropped: number }
  | { status: 'error'; error: string };

const RESOLVE_BATCH = 500;
/** A liveness batch in which more than this share of lookups failed means the DNS servers are not answering. */
const MAX_UNKNOWN_SHARE = 0.5;

/**
 * Runs scans one slice at a time: each slice works until its deadline and persists where it stopped, so a
 * large domain goes on across ticks (or workers) instead of holding one, and a crash loses at most a slice.
 */
@Injectable()
export class ScanRunner {
  private readonly logger = new Logger('Scans');
  private readonly resolver: DnsResolver;
  /** A scan's sources in the order they run: permute last, so it learns from what the others found. */
  private readonly sources: DiscoverySource[];
  /** An event scan's: permute alone (empty when SCAN_SOURCES leaves it out). */
  private readonly eventSources: DiscoverySource[];

  constructor(
    private readonly env: Environment,
    private readonly store: ScanStoreRepository,
    private readonly signal: NewHostSignal,
    private readonly prober: HostProber,
    permutes: PermuteRepository,
    // The CLI runs scans without the HTTP app's metrics.
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.resolver = new DnsResolver(env.DNS_SERVERS, env.DNS_TIMEOUT_MS);
    const named = [
      ...env.SCAN_SOURCES.filter((n) => n !== 'permute'),
      ...env.SCAN_SOURCES.filter((n) => n === 'permute'),
    ];
    this.sources = named.map((name): DiscoverySource => {
      switch (name) {
        case 'crtsh':
          return new CrtshSource(env);
        case 'dns':
          return new DnsBruteSource(env, this.resolver);
        case 'command':
          return new CommandSource(env);
        case 'permute': {
          const confirmer = env.DNS_TRUSTED_SERVERS?.length
            ? new DnsResolver(env.DNS_TRUSTED_SERVERS, env.DNS_TIMEOUT_MS)
            : this.resolver;
          return new PermuteSource(env, this.resolver, confirmer, permutes);
        }
      }
    });
    this.eventSources = this.sources.filter((s) => s.name === 'permute');
  }

  async runSlice(scan: ActiveScan, signal: AbortSignal, deadline: number): Promise<SliceOutcome> {
    let progress = readProgress(scan.progress);
    try {
      while (!signal.aborted) {
        if (progress.phase === 'commit') {
          const final = await this.store.finishSuccess(scan, this.env.RESOLVE === 'off');
          if (!final) {
            this.logger.warn(`scan ${scan.id} of ${scan.domain} was ended by another worker meanwhile`);
            return { status: 'parked', progress };
          }
          this.logger.log(`scan ${scan.id} of ${scan.domain} (${scan.trigger}) succeeded: ${JSON.stringify(final)}`);
          this.metrics?.scans.inc({ status: 'success', trigger: scan.trigger });
          this.metrics?.hostsDiscovered.inc(final.new);
          // New hosts, and hosts gone or back: streams of hosts and of changes look.
          if (final.new + final.inactive + final.reactivated > 0) await this.signal.publish(scan.domainId);
          return { status: 'success', ...final };
        }
        if (Date.now() >= deadline) break;
        progress =
          progress.phase === 'discover'
            ? await this.discover(scan, progress, signal, deadline)
            : await this.resolve(scan, progress);
      }
      return { status: 'parked', progress };
    } catch (e) {
      // Stopping cut a source short: that is no failure of the source. The interrupted step staged nothing
      // and runs again when the scan is resumed.
      if (signal.aborted) return { status: 'parked', progress };
      if (!(e instanceof SourceError)) throw e;
      await this.store.finishError(scan, e.message);
      this.logger.warn(`scan ${scan.id} of ${scan.domain} (${scan.trigger}) failed: ${e.message}`);
      this.metrics?.scans.inc({ status: 'error', trigger: scan.trigger });
      return { status: 'error', error: e.message };
    }
  }

  private async discover(
    scan: ActiveScan,
    at: Extract<ScanProgress, { phase: 'discover' }>,
    signal: AbortSignal,
    deadline: number,
  ): Promise<ScanProgress> {
    const source = (scan.trigger === 'event' ? this.eventSources : this.sources)[at.source];
    if (!source) return this.env.RESOLVE === 'on' ? { phase: 'resolve', after: null } : { phase: 'commit' };
    const started = performance.now();
    const slice = await source.run(
      scan.domain,
      at.position,
      { deadline, signal },
      { domainId: scan.domainId, scanId: scan.id, seedsFrom: scan.seedsFrom },
    );
    const { hosts, dropped } = normalizeAll(slice.names, scan.domain);
    const next: ScanProgress =
      slice.next === null
        ? { phase: 'discover', source: at.source + 1, position: null }
        : { ...at, position: slice.next };
    await this.store.stage(scan.id, source.name, hosts, dropped, next, performance.now() - started);
    return next;
  }

  /**
   * The zones (the root, and the sub-zones the batch's resolving hosts sit in) not yet checked this scan, asked for
   * random labels: what they answer is a wildcard's answer. At most ZONES_PER_BATCH a batch; the rest come with
   * later batches or the next scan.
   */
  private async wildcardZones(scan: ActiveScan, answers: (DnsAnswer & { host: string })[]): Promise<ZoneAnswer[]> {
    const revealers = new Map<string, string>();
    for (const a of answers) {
      if (a.status !== 'resolved') continue;
      const zone = zoneOf(a.host);
      if (zone.endsWith(scan.domain) && !revealers.has(zone)) revealers.set(zone, a.host);
    }
    if (revealers.size === 0) return [];
    const zones = (await this.store.zonesToCheck(scan, [...revealers.keys()])).slice(0, ZONES_PER_BATCH);
    // A and AAAA both: a host's wildcard flag compares all its addresses with its zone's.
    const both = async (name: string): Promise<Resolution> => {
      const probe = await this.resolver.answer(name);
      return probe.status === 'resolved' ? { status: 'yes', addresses: [...probe.a, ...probe.aaaa] } : { status: 'no' };
    };
    return mapLimit(zones, this.env.DNS_CONCURRENCY, async (zone) => {
      const answers = await wildcardAnswers(zone, WILDCARD_PROBES, both);
      return { zone, answers: answers.sort(), revealedBy: revealers.get(zone) ?? null };
    });
  }

  /**
   * Liveness: a name is seen when it resolves. A known host whose lookup failed (rather than came back
   * empty) keeps counting as seen, so a flaky resolver never marks hosts inactive; mostly failed lookups
   * end the scan in error instead.
   */
  private async resolve(scan: ActiveScan, at: Extract<ScanProgress, { phase: 'resolve' }>): Promise<ScanProgress> {
    const batch = await this.store.candidates(scan, at.after, RESOLVE_BATCH);
    if (batch.length === 0) return { phase: 'commit' };
    const answers = await mapLimit(batch, this.env.DNS_CONCURRENCY, (c) => this.resolver.answer(c.host));
    const failed = (i: number) => answers[i].status === 'timeout' || answers[i].status === 'servfail';
    const unknown = batch.filter((_, i) => failed(i)).length;
    if (batch.length >= 10 && unknown / batch.length > MAX_UNKNOWN_SHARE) {
      throw new SourceError(`resolve: ${unknown} of ${batch.length} lookups failed; the DNS servers are not answering`);
    }
    const seen = batch.filter((c, i) => answerSeen(answers[i]) || (failed(i) && c.known));
    const next: ScanProgress = { phase: 'resolve', after: batch[batch.length - 1].host };
    const kept = batch.map((c, i) => ({ host: c.host, ...answers[i] }));
    const zones = await this.wildcardZones(scan, kept);
    const { added, changes } = await this.store.recordSeen(
      scan,
      seen.map((c) => c.host),
      kept,
      zones,
      next,
    );
    this.prober.enqueue(scan.domainId, kept);
    if (added + changes > 0) await this.signal.publish(scan.domainId);
    return next;
  }
}

/** Random labels asked per zone, and zones asked per liveness batch at most. */
const WILDCARD_PROBES = 2;
const ZONES_PER_BATCH = 50;

function readProgress(value: Record<string, unknown>): ScanProgress {
  switch (value.phase) {
    case 'discover':
    case 'resolve':
    case 'commit':
      return value as ScanProgress;
    default:
      return { phase: 'discover', source: 0, position: null };
  }
}
