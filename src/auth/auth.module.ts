import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { AuthGuard } from './auth.guard.js';
import { MeController } from './me.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [MeController],
  providers: [ApiKeysRepository, ApiKeysService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [ApiKeysService],
})
export class AuthModule {}
