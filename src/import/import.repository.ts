import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rows } from '../database/sql.js';
import { syncImportedRules } from '../scope/scope-rules.repository.js';
import type { ImportEntry, ImportExclusion } from './scope-formats.js';
import { GenerateSql } from '../database/generate-sql.js';
import { HostStore } from '../hosts/store/host-store.js';

export interface ImportResult {
  added: string[];
  kept: number;
  disabled: string[];
  /** Root domains the file lists under its platform that are tracked under another platform (left there). */
  elsewhere: { domain: string; platform: string }[];
  /** Imported exclusion rules added and removed, and the hosts that moved in or out of scope with them. */
  rules: { added: number; removed: number; moved: number };
}

class DryRun extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run');
  }
}

/**
 * Writes an import in one transaction of set-based statements: nothing half-written if anything fails.
 * A dry run runs the very same statements and rolls them back, so it reports exactly what a real run does.
 */
@Injectable()
export class ImportRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hosts: HostStore,
  ) {}

  @GenerateSql({
    name: 'a dry run that prunes',
    params: [
      [{ domain: 'example.org', platform: 'hackerone', program: 'Example', handle: 'example' }],
      [
        {
          domain: 'example.org',
          platform: 'hackerone',
          kind: 'host',
          pattern: 'legacy.example.org',
          regex: '^legacy\\.example\\.org$',
        },
      ],
      ['hackerone'],
      true,
    ],
  })
  async apply(
    entries: ImportEntry[],
    exclusions: ImportExclusion[] | null,
    prunePlatforms: string[] | null,
    dryRun: boolean,
  ): Promise<ImportResult> {
    const columns = [
      entries.map((e) => e.domain),
      entries.map((e) => e.platform),
      entries.map((e) => e.program),
      entries.map((e) => e.handle),
    ];
    try {
      return await this.hosts.transaction(async (w) => {
        const m = w.manager;
        const added = await rows<{ domain: string }>(
          m,
          `INSERT INTO domains (domain, platform_slug, program, program_handle)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
           ON CONFLICT (domain) DO NOTHING RETURNING domain`,
          columns,
        );
        // Domains tracked before, under the same platform, learn their program's name if they had none (and with
        // it the program's exclusion rules, copied by a trigger).
        const joined = await rows<{ id: number }>(
          m,
          `UPDATE domains d SET program = x.program, program_handle = coalesce(d.program_handle, x.handle), updated_at = now()
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(domain, platform, program, handle)
            WHERE d.domain = x.domain AND d.platform_slug = x.platform AND d.program IS NULL AND x.program IS NOT NULL
            RETURNING d.id`,
          columns,
        );
        const elsewhere = await rows<{ domain: string; platform: string }>(
          m,
          `SELECT d.domain, d.platform_slug AS platform FROM domains d
             JOIN unnest($1::text[], $2::text[]) AS x(domain, platform) ON d.domain = x.domain
            WHERE d.platform_slug <> x.platform ORDER BY d.domain`,
          columns.slice(0, 2),
        );
        const disabled = prunePlatforms
          ? await rows<{ domain: string }>(
              m,
              `UPDATE domains SET enabled = false, updated_at = now()
                WHERE platform_slug = ANY($1::text[]) AND enabled AND NOT (domain = ANY($2::text[]))
                RETURNING domain`,
              [prunePlatforms, columns[0]],
            )
          : [];
        // Formats with no out-of-scope list (null) leave the imported rules as they are.
        const rules = exclusions
          ? await syncImportedRules(
              w,
              entries.map((e) => ({ domain: e.domain, platform: e.platform })),
              exclusions,
              joined.map((d) => d.id),
            )
          : {
              added: 0,
              removed: 0,
              moved: await w.applyScope(joined.map((d) => d.id)),
            };
        const result: ImportResult = {
          added: added.map((r) => r.domain).sort(),
          kept: entries.length - added.length - elsewhere.length,
          disabled: disabled.map((r) => r.domain).sort(),
          elsewhere,
          rules,
        };
        if (dryRun) throw new DryRun(result);
        return result;
      });
    } catch (e) {
      if (e instanceof DryRun) return e.result;
      throw e;
    }
  }
}
