import { Injectable } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { DemoDataRepository } from './demo-data.repository.js';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';

export interface SeedOptions {
  domains: number;
  hosts: number;
  days: number;
  seed: string;
}

export interface SeedReport {
  domains: number;
  hosts: number;
  seconds: number;
}

export class SeedRefused extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}

const CHUNK = 100_000;

@Injectable()
export class DemoDataService {
  constructor(
    private readonly demo: DemoDataRepository,
    private readonly env: Environment,
  ) {}

  /**
   * Fills an empty database; `onStep(done, total, what)` reports progress. The rows go in as one transaction
   * (DemoDataRepository.bulkLoad) with the new-host rollups, the scans and counters after, from them.
   */
  async seed(options: SeedOptions, onStep: (done: number, total: number, what: string) => void): Promise<SeedReport> {
    const existing = await this.demo.countDomains();
    if (existing > 0) throw new SeedRefused(`seed-demo fills an empty database; this one tracks ${existing} domains`);
    const started = Date.now();
    const chunks = Math.ceil(options.hosts / CHUNK);
    const total = chunks + 3;
    const ref = await this.demo.now();
    const { domains, hosts } = await this.demo.bulkLoad(async (load) => {
      onStep(0, total, 'domains');
      const domains = await load.insertDomains(options.seed, options.domains, ref, this.env.SCAN_INTERVAL_HOURS);
      let hosts = 0;
      for (let c = 0; c < chunks; c++) {
        onStep(1 + c, total, `hosts ${c * CHUNK + 1}-${Math.min(options.hosts, (c + 1) * CHUNK)}`);
        hosts += await load.insertHosts(
          options.seed,
          c * CHUNK + 1,
          Math.min(options.hosts, (c + 1) * CHUNK),
          options.days,
          ref,
        );
      }
      onStep(1 + chunks, total, 'what is known of the hosts');
      await load.insertKnowledge(options.seed, ref);
      await load.countNewHosts();
      return { domains, hosts };
    });
    onStep(1 + chunks, total, 'scans and counters');
    await this.demo.insertScansAndCounters(Math.min(options.days, 7), ref);
    onStep(2 + chunks, total, 'vacuum analyze');
    await this.demo.vacuumAnalyze();
    onStep(total, total, 'done');
    return { domains, hosts, seconds: (Date.now() - started) / 1000 };
  }
}
