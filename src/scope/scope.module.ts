import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { ExclusionsController } from './exclusions.controller.js';
import { ScopeRulesRepository } from './scope-rules.repository.js';
import { ScopeRulesService } from './scope-rules.service.js';

/** Exclusion rules per root domain, and the scope of each host they decide. */
@Module({
  imports: [DomainsModule],
  controllers: [ExclusionsController],
  providers: [ScopeRulesRepository, ScopeRulesService],
  exports: [ScopeRulesService],
})
export class ScopeModule {}
