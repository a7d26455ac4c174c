import { Injectable } from '@nestjs/common';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';
import { RenderedJson } from '../common/rendered-json.js';
import { CONTROL_CHARACTERS_PROBLEM, hasControlCharacters } from '../common/validation/control-characters.js';
import { PlatformsRepository } from '../platforms/platforms.repository.js';
import type { DomainEntity } from './entities/domain.entity.js';
import type { ListDomainsQuery } from './dto/list-domains.query.js';
import { DomainsRepository, type TrackedDomain } from './domains.repository.js';
import { rootDomainProblem } from '../common/validation/root-domain.js';
import { Environment } from '../config/environment.js';
import { DataVersion } from '../database/data-version.js';
import { VersionKept } from '../database/version-kept.js';

/** Tracked domains kept for reads: a few dozen bytes each. */
const KEPT_DOMAINS = 10_000;

const notTracked = (name: string) => AppError.notFound(`Domain ${name} is not tracked`);

/** A bad argument from an operator; the CLI prints its message alone. */
export class DomainInputError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_domain') {
    super(code, message);
  }
}

@Injectable()
export class DomainsService {
  private readonly toRead: VersionKept<TrackedDomain>;

  constructor(
    private readonly domains: DomainsRepository,
    private readonly platforms: PlatformsRepository,
    version: DataVersion,
    env: Environment,
  ) {
    this.toRead = new VersionKept(version, env, KEPT_DOMAINS);
  }

  /**
   * Tracks the names that are root domains and refuses the others, each with its reason: one bad name among several
   * keeps none of the rest out. A bad platform or program refuses them all, before anything is written.
   */
  async add(names: string[], platformSlug: string, program: string | null, enabled: boolean) {
    if (names.length === 0) throw new DomainInputError('give at least one domain');
    if (program !== null && hasControlCharacters(program))
      throw new DomainInputError(CONTROL_CHARACTERS_PROBLEM('--program'));
    const problem = await this.platforms.unknownSlugProblem(platformSlug);
    if (problem) throw new DomainInputError(problem);
    const checked = [...new Set(names)].map((name) => ({ name, why: rootDomainProblem(name) }));
    const refused = checked.filter((c) => c.why !== null).map((c) => `"${c.name}" ${c.why}`);
    const valid = checked.filter((c) => c.why === null).map((c) => c.name);
    const added =
      valid.length > 0
        ? await this.domains.insertMissing(valid.map((domain) => ({ domain, platformSlug, program, enabled })))
        : [];
    return { added, existing: valid.filter((d) => !added.includes(d)), refused };
  }

  async setEnabled(names: string[], enabled: boolean) {
    const unique = this.validNames(names);
    const changed = await this.domains.setEnabled(unique, enabled);
    return { changed, unknown: unique.filter((d) => !changed.includes(d)) };
  }

  async remove(names: string[]) {
    const unique = this.validNames(names);
    const removed = await this.domains.remove(unique);
    if (removed.length > 0) await this.domains.rebuildNewHostCounts();
    return { removed, unknown: unique.filter((d) => !removed.includes(d)) };
  }

  list(): Promise<DomainEntity[]> {
    return this.domains.list();
  }

  async page(query: ListDomainsQuery) {
    const { search, platform, enabled } = query;
    const page = await this.domains.listPage({ search, platform, enabled }, query.sort, query.limit, query.offset);
    return RenderedJson.envelope(page.json, { limit: query.limit, offset: query.offset, total: page.total });
  }

  async detail(name: string): Promise<RenderedJson> {
    const domain = await this.domains.findDetail(name);
    if (!domain) throw notTracked(name);
    return RenderedJson.data(domain);
  }

  /** The tracked domain of that name, or the contract's 404 not_found. */
  async requireTracked(name: string): Promise<TrackedDomain> {
    const domain = await this.domains.findTracked(name);
    if (!domain) throw notTracked(name);
    return domain;
  }

  /**
   * The tracked domain of that name for a read (its id and counters, as requireTracked), kept per data version: the
   * hot reads under /domains/{domain} (its hosts, new hosts) then make one round trip to the database, not two.
   * Writes ask requireTracked, which reads it each time.
   */
  async requireTrackedToRead(name: string): Promise<TrackedDomain> {
    const { kept, keep } = this.toRead.at(name);
    if (kept) return kept;
    const domain = await this.requireTracked(name);
    keep(domain);
    return domain;
  }

  /** When the domain was queued for a scan not started yet, or null. */
  queuedSince(id: number): Promise<string | null> {
    return this.domains.queuedSince(id);
  }

  private validNames(names: string[]): string[] {
    if (names.length === 0) throw new DomainInputError('give at least one domain');
    for (const name of names) {
      const problem = rootDomainProblem(name);
      if (problem) throw new DomainInputError(`"${name}" ${problem}`);
    }
    return [...new Set(names)];
  }
}
