import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { UsersModule } from '../../users/users.module.js';
import { WebhooksModule } from '../../notify/notify.module.js';
import { AccountController } from './account.controller.js';
import { AccountRepository } from './account.repository.js';
import { AccountService } from './account.service.js';

/** The paths the account page serves, outside the API prefix. */
export const ACCOUNT_PATHS = [
  'account',
  'account/sign-in',
  'account/sign-out',
  'account/tokens',
  'account/tokens/:id/revoke',
  'account/webhooks',
  'account/webhooks/:id/test',
  'account/webhooks/:id/remove',
  'account/webhooks/:id/deliveries/:delivery/retry',
  'account/account.css',
  'account/account.js',
];

@Module({
  imports: [AuthModule, UsersModule, WebhooksModule],
  controllers: [AccountController],
  providers: [AccountRepository, AccountService],
  exports: [AccountService],
})
export class AccountModule {}
