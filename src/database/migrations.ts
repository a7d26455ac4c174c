import pg from 'pg';
import type { DataSource } from 'typeorm';
import { Db } from './db.js';
import { InitialSchema1763700000000 } from '../../migrations/1763700000000-InitialSchema.js';
import { DomainActiveCounter1763800000000 } from '../../migrations/1763800000000-DomainActiveCounter.js';
import { ScanProgress1763900000000 } from '../../migrations/1763900000000-ScanProgress.js';
import { NewHostCounts1764000000000 } from '../../migrations/1764000000000-NewHostCounts.js';
import { ProgramHandle1764100000000 } from '../../migrations/1764100000000-ProgramHandle.js';
import { DomainNewHostCounts1764200000000 } from '../../migrations/1764200000000-DomainNewHostCounts.js';
import { Users1764300000000 } from '../../migrations/1764300000000-Users.js';
import { Webhooks1764400000000 } from '../../migrations/1764400000000-Webhooks.js';
import { FeedIndexCoversHost1764500000000 } from '../../migrations/1764500000000-FeedIndexCoversHost.js';
import { NewHostMinutes1764600000000 } from '../../migrations/1764600000000-NewHostMinutes.js';
import { SearchWithinDomain1764700000000 } from '../../migrations/1764700000000-SearchWithinDomain.js';
import { CtLogs1764800000000 } from '../../migrations/1764800000000-CtLogs.js';
import { HostSources1764900000000 } from '../../migrations/1764900000000-HostSources.js';
import { CtWebhookDeliveries1765000000000 } from '../../migrations/1765000000000-CtWebhookDeliveries.js';
import { HostKnowledge1765100000000 } from '../../migrations/1765100000000-HostKnowledge.js';
import { WebhookEventTypes1765200000000 } from '../../migrations/1765200000000-WebhookEventTypes.js';
import { ScopeRules1765300000000 } from '../../migrations/1765300000000-ScopeRules.js';
import { ImportedScopeRules1765400000000 } from '../../migrations/1765400000000-ImportedScopeRules.js';
import { OwnedWebhooks1765500000000 } from '../../migrations/1765500000000-OwnedWebhooks.js';
import { WebhookChannels1765600000000 } from '../../migrations/1765600000000-WebhookChannels.js';
import { WebhookFilters1765700000000 } from '../../migrations/1765700000000-WebhookFilters.js';
import { ProgramScopeRules1765800000000 } from '../../migrations/1765800000000-ProgramScopeRules.js';
import { DataVersion1765900000000 } from '../../migrations/1765900000000-DataVersion.js';
import { ListSortIndexes1766000000000 } from '../../migrations/1766000000000-ListSortIndexes.js';
import { DataVersionNotices1766100000000 } from '../../migrations/1766100000000-DataVersionNotices.js';
import { FeedIndexCarriesActive1766200000000 } from '../../migrations/1766200000000-FeedIndexCarriesActive.js';
import { CustomPlanGuard1766300000000 } from '../../migrations/1766300000000-CustomPlanGuard.js';
import { WebhookFields1766400000000 } from '../../migrations/1766400000000-WebhookFields.js';
import { PermuteSource1766500000000 } from '../../migrations/1766500000000-PermuteSource.js';
import { PermuteEvents1766600000000 } from '../../migrations/1766600000000-PermuteEvents.js';
import { SourceDays1766700000000 } from '../../migrations/1766700000000-SourceDays.js';
import { HostKeyCarriesRow1766800000000 } from '../../migrations/1766800000000-HostKeyCarriesRow.js';
import { HostSourcesJson1766900000000 } from '../../migrations/1766900000000-HostSourcesJson.js';
import { ScopeRulesByRoot1767000000000 } from '../../migrations/1767000000000-ScopeRulesByRoot.js';
import { WildcardOnlyGuessed1767100000000 } from '../../migrations/1767100000000-WildcardOnlyGuessed.js';

export const MIGRATIONS = [
  InitialSchema1763700000000,
  DomainActiveCounter1763800000000,
  ScanProgress1763900000000,
  NewHostCounts1764000000000,
  ProgramHandle1764100000000,
  DomainNewHostCounts1764200000000,
  Users1764300000000,
  Webhooks1764400000000,
  FeedIndexCoversHost1764500000000,
  NewHostMinutes1764600000000,
  SearchWithinDomain1764700000000,
  CtLogs1764800000000,
  HostSources1764900000000,
  CtWebhookDeliveries1765000000000,
  HostKnowledge1765100000000,
  WebhookEventTypes1765200000000,
  ScopeRules1765300000000,
  ImportedScopeRules1765400000000,
  OwnedWebhooks1765500000000,
  WebhookChannels1765600000000,
  WebhookFilters1765700000000,
  ProgramScopeRules1765800000000,
  DataVersion1765900000000,
  ListSortIndexes1766000000000,
  DataVersionNotices1766100000000,
  FeedIndexCarriesActive1766200000000,
  CustomPlanGuard1766300000000,
  WebhookFields1766400000000,
  PermuteSource1766500000000,
  PermuteEvents1766600000000,
  SourceDays1766700000000,
  HostKeyCarriesRow1766800000000,
  HostSourcesJson1766900000000,
  ScopeRulesByRoot1767000000000,
  WildcardOnlyGuessed1767100000000,
];

// Any constant works; it only has to be the same in every process of this service.
const MIGRATION_LOCK = 7_304_113_211;

/**
 * Applies pending migrations. On a shared server an advisory lock makes concurrent starts wait for each
 * other instead of racing; the embedded database has one process and one connection, so it needs none. The lock
 * is held on a connection of its own, outside the pool: with DATABASE_POOL_SIZE=1 a pooled one would leave the
 * migrations none.
 */
export async function runMigrations(dataSource: DataSource, shared: boolean): Promise<string[]> {
  if (!shared) return names(await dataSource.runMigrations({ transaction: 'each' }));
  const lock = new pg.Client(Db.of(dataSource).primaryConfig);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return names(await dataSource.runMigrations({ transaction: 'each' }));
  } finally {
    // Ending the session releases the lock.
    await lock.end().catch(() => undefined);
  }
}

const names = (ran: { name: string }[]) => ran.map((m) => m.name);
