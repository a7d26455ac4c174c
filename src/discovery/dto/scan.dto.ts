import { ApiProperty } from '@nestjs/swagger';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import { SCAN_STATUSES, SCAN_TRIGGERS } from '../entities/scan.entity.js';

export class ScanDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Root domain scanned', example: 'example.com' }) domain: string;
  @ApiProperty({ enum: PLATFORM_SLUGS }) platform: string;

  @ApiProperty({
    enum: SCAN_TRIGGERS,
    description:
      'cron: scheduled; api: queued with POST /scans; cli: run by an operator; event: permutations seeded by hosts ' +
      'the CT follower just found (SCAN_SOURCES with permute)',
  })
  trigger: string;

  @ApiProperty({ enum: SCAN_STATUSES }) status: string;
  @ApiProperty({ type: 'integer', description: 'Distinct valid host names the scan saw' }) found_count: number;
  @ApiProperty({ type: 'integer', description: 'Hosts found for the first time' }) new_count: number;
  @ApiProperty({ type: 'integer', description: 'Inactive hosts seen again' }) reactivated_count: number;
  @ApiProperty({ type: 'integer', description: 'Known hosts the scan did not see, now inactive' })
  inactive_count: number;
  @ApiProperty({ type: 'integer', description: 'Reported names dropped as invalid or outside the domain' })
  dropped_count: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } },
    description:
      'What each source did, by source: ms (time its slices took), and when the scan succeeded names (the names ' +
      'it reported), seen (of them, those the scan saw: resolved, with RESOLVE=on; a source whose names mostly are ' +
      'not seen floods) and new (of them, hosts found for the first time). permute adds candidates (names it ' +
      'ranked for the scan), queries (DNS queries it sent, wildcard checks and confirmations included) and hits.',
    example: {
      crtsh: { ms: 950, names: 412, seen: 380, new: 3 },
      permute: { ms: 4100, names: 12, seen: 12, new: 12, candidates: 1800, queries: 1873, hits: 12 },
    },
  })
  source_stats: Record<string, Record<string, number>>;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the scan failed (status error)' }) error:
    string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) started_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) finished_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Milliseconds from start to finish' }) duration_ms:
    number | null;
}

export class WorkerHealthDto {
  @ApiProperty({ type: 'integer', description: 'Scans running now' }) running_scans: number;
  @ApiProperty({ type: 'integer', description: 'Scans finished in the last 30 minutes' }) scanned_30m: number;
  @ApiProperty({ type: 'integer', description: 'Of those, scans that ended in error' }) errors_30m: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'Message of the most recent failed scan' })
  last_error: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the most recent failed scan finished',
  })
  last_error_at: string | null;
}

export class WorkerCycleDto {
  @ApiProperty({ type: 'integer', description: 'Enabled domains whose next scan is due now' }) due_domains: number;
  @ApiProperty({ type: 'integer', description: 'All tracked domains' }) total_domains: number;
  @ApiProperty({ type: 'integer', description: 'Enabled domains' }) enabled_domains: number;
  @ApiProperty({ type: 'integer', description: 'Domains queued with POST /scans and not yet started (queue depth)' })
  queued_domains: number;

  @ApiProperty({ description: 'Share of enabled domains scanned within the scan interval, 0 to 1 (sweep coverage)' })
  sweep_coverage: number;

  @ApiProperty({ type: 'integer', description: 'Hours between scheduled scans of a domain' }) interval_hours: number;
}

export class WorkerStatusDto {
  @ApiProperty({ type: WorkerHealthDto }) health: WorkerHealthDto;
  @ApiProperty({ type: WorkerCycleDto }) cycle: WorkerCycleDto;
}

export class QueuedScanDto {
  @ApiProperty({ example: 'example.com' }) domain: string;
  @ApiProperty({ enum: ['queued'] }) status: string;
}

export class RescanAllDto {
  @ApiProperty({ type: 'integer', description: 'Enabled domains marked due' }) queued_domains: number;
}
