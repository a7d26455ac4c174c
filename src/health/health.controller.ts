import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { DatabaseHealthIndicator } from './database.health.js';

/** Probes for orchestrators, outside the API prefix and public: live = the process answers, ready = the database does. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** 200 with terminus's report when the database answers; 503 with the same report (status error) when not. */
  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      return await this.health.check([() => this.database.isReady()]);
    } catch (e) {
      if (!(e instanceof ServiceUnavailableException)) throw e;
      void reply.status(503).header('cache-control', 'no-store');
      return e.getResponse();
    }
  }
}
