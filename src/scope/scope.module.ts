import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { ExclusionsController, ProgramExclusionsController } from './exclusions.controller.js';
import { ProgramRulesRepository } from './program-rules.repository.js';
import { ScopeRulesRepository } from './scope-rules.repository.js';
import { ScopeRulesService } from './scope-rules.service.js';

/**
 * Exclusion rules per root domain and per program, and the scope of each host they decide. The service's root adds
 * StoredRulesCheck (the CLI's does not).
 */
@Module({
  imports: [DomainsModule, PlatformsModule],
  controllers: [ExclusionsController, ProgramExclusionsController],
  providers: [ScopeRulesRepository, ProgramRulesRepository, ScopeRulesService],
  exports: [ScopeRulesService, ScopeRulesRepository],
})
export class ScopeModule {}
