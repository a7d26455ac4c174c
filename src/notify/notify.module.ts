import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { DigestsRepository } from './digests.repository.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Registering webhooks (the CLI's, and the API's for their owners): see WebhookDeliveryModule for delivering them. */
@Module({
  imports: [DomainsModule, PlatformsModule],
  providers: [WebhooksRepository, DeliveriesRepository, DigestsRepository, WebhooksService, WebhookSender],
  exports: [WebhooksRepository, DeliveriesRepository, DigestsRepository, WebhooksService, WebhookSender],
})
export class WebhooksModule {}

/** Delivering webhooks: only in processes that run the worker. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookDeliveryService],
  exports: [WebhookDeliveryService],
})
export class WebhookDeliveryModule {}

/** The owners' webhooks API, /api/v1/webhooks. */
@Module({
  imports: [WebhooksModule],
  controllers: [WebhooksController],
})
export class WebhooksApiModule {}
