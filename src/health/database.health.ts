import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

const TIMEOUT_MS = 3000;

/** Ready means the database answers a trivial query within three seconds. */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly dataSource: DataSource,
  ) {}

  async isReady() {
    const check = this.health.check('database');
    const started = Date.now();
    try {
      await Promise.race([
        this.dataSource.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS).unref()),
      ]);
      return check.up({ responseTime: Date.now() - started });
    } catch {
      return check.down({ message: 'database is not reachable' });
    }
  }
}
