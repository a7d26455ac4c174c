import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsIn } from 'class-validator';
import { toList } from './env-transforms.js';
import { CronVar, EnvVar, IntVar, ListVar, StringVar } from './env-var.decorator.js';

export const SCAN_SOURCE_NAMES = ['crtsh', 'dns', 'command', 'permute'] as const;
export type ScanSourceName = (typeof SCAN_SOURCE_NAMES)[number];

/** A DNS server: an IPv6 address in brackets, a name or an address, and a port. */
const DNS_SERVER = /^(\[[0-9a-f:]+\]|[0-9a-z.-]+|[0-9a-f:]+)(:\d{1,5})?$/i;

/** The worker and discovery: when scans run, how many at once, and the sources they ask. */
export class ScanEnvironment {
  @CronVar({
    default: '0 * * * * *',
    description: 'When the worker ticks: a cron expression, five fields or six with seconds.',
  })
  WORKER_CRON: string;

  @IntVar({ default: 24, min: 1, max: 8760, description: 'Hours between scheduled scans of an enabled domain.' })
  SCAN_INTERVAL_HOURS: number;

  @IntVar({ default: 4, min: 1, max: 64, description: 'Scans one worker process runs at once.' })
  SCAN_CONCURRENCY: number;

  @IntVar({
    default: 30,
    min: 1,
    max: 3600,
    description: 'Seconds a scan works per tick before it yields and goes on at the next tick.',
  })
  SCAN_SLICE_SECONDS: number;

  @IntVar({
    default: 120,
    min: 5,
    max: 86_400,
    description: 'Seconds a worker holds a scan without a heartbeat; after that another worker takes it up.',
  })
  SCAN_LEASE_SECONDS: number;

  @EnvVar<ScanSourceName[]>(
    {
      default: ['crtsh'],
      description:
        'Discovery sources, a comma list of crtsh, dns, command and permute, run in that order but for permute, ' +
        'which runs last whatever its place (it learns from what the others and the CT follower found).',
    },
    Transform(toList),
    IsIn(SCAN_SOURCE_NAMES, {
      each: true,
      message: 'SCAN_SOURCES must be a comma list of crtsh, dns, command and permute',
    }),
    ArrayNotEmpty({ message: 'SCAN_SOURCES must name at least one source' }),
  )
  SCAN_SOURCES: ScanSourceName[];

  @StringVar({
    default: 'https://crt.sh',
    matches: /^https?:\/\/\S+$/,
    message: 'CRTSH_URL must be an http:// or https:// URL',
    description: 'Base URL of the certificate-transparency search (crt.sh JSON format).',
  })
  CRTSH_URL: string;

  @IntVar({ default: 60, min: 1, max: 600, description: 'Seconds one certificate-transparency request may take.' })
  CRTSH_TIMEOUT_SECONDS: number;

  @IntVar({
    default: 256,
    min: 1,
    max: 4096,
    description:
      'Largest body, in MiB, read from a fetched scope list (domains import URL, SYNC_SOURCES) or a certificate-transparency answer; counted as it arrives.',
  })
  FETCH_MAX_MB: number;

  @IntVar({
    default: 3,
    min: 1,
    max: 10,
    description: 'Attempts per source request before the scan fails (with back-off between them).',
  })
  SOURCE_ATTEMPTS: number;

  @StringVar({
    unset: '(a built-in list of common labels)',
    description: 'Word list file for the dns source, one label per line.',
  })
  DNS_WORDLIST?: string;

  @ListVar({
    unset: "(the system's resolvers)",
    matches: DNS_SERVER,
    message: 'DNS_SERVERS must be a comma list of host[:port]',
    description: 'DNS servers for the dns source and liveness checks, a comma list of host[:port].',
  })
  DNS_SERVERS?: string[];

  @IntVar({ default: 50, min: 1, max: 1000, description: 'DNS queries in flight at once per scan.' })
  DNS_CONCURRENCY: number;

  @IntVar({
    default: 2000,
    min: 10,
    max: 1_000_000,
    description:
      'The permute source: DNS queries a root may cost a scan at most (candidates, their zones’ wildcard checks and ' +
      'the confirmation of each hit), spent on the best-ranked candidates first.',
  })
  PERMUTE_BUDGET: number;

  @IntVar({
    default: 30,
    min: 1,
    max: 3650,
    description: 'The permute source: days a candidate that did not resolve is not tried again (the negative cache).',
  })
  PERMUTE_RETRY_DAYS: number;

  @IntVar({
    default: 2,
    min: 0,
    max: 5,
    description:
      'The permute source: how many zone levels below the root a sub-zone known hosts reveal gets its own brute force.',
  })
  PERMUTE_DEPTH: number;

  @IntVar({
    default: 60,
    min: 0,
    max: 86_400,
    description:
      'The permute source: seconds the hosts the CT follower finds for a root gather before they seed an event ' +
      'scan of the permutations around them (0: at the next tick).',
  })
  PERMUTE_EVENT_SECONDS: number;

  @IntVar({
    default: 300,
    min: 10,
    max: 1_000_000,
    description: 'The permute source: DNS queries an event scan (seeded by hosts just found) may cost at most.',
  })
  PERMUTE_EVENT_BUDGET: number;

  @ListVar({
    unset: '(DNS_SERVERS)',
    matches: DNS_SERVER,
    message: 'DNS_TRUSTED_SERVERS must be a comma list of host[:port]',
    description:
      'The servers that confirm a permute hit (a second query) before it is recorded, so one flaky or poisoned ' +
      'answer cannot fill the table: a comma list of host[:port].',
  })
  DNS_TRUSTED_SERVERS?: string[];

  @IntVar({ default: 3000, min: 100, max: 60_000, description: 'Milliseconds to wait for one DNS answer.' })
  DNS_TIMEOUT_MS: number;

  @StringVar({
    // It may carry an enumerator's API key inline.
    secret: true,
    description:
      'External enumerator for the command source, run without a shell; {domain} is replaced. One host per line on stdout.',
  })
  SCAN_COMMAND?: string;

  @IntVar({ default: 600, min: 1, max: 86_400, description: 'Seconds the command source may run.' })
  SCAN_COMMAND_TIMEOUT_SECONDS: number;

  @ListVar({
    keepCase: true,
    matches: /^[A-Za-z_][A-Za-z0-9_]*$/,
    message: 'SCAN_COMMAND_ENV must be a comma list of environment variable names',
    description:
      "Environment variables SCAN_COMMAND is given besides PATH, HOME, LANG and LC_ALL, a comma list of names (e.g. its API keys' variables); it sees no other, such as DATABASE_URL.",
  })
  SCAN_COMMAND_ENV?: string[];
}
