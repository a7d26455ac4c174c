import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedKey } from '../auth/api-keys.service.js';
import { CurrentKey, RequireScope } from '../auth/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { AppError } from '../common/errors/app-error.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi/api-responses.js';
import { UuidPipe } from '../common/validation/param.pipes.js';
import { CreatedWebhookDto, CreateWebhookDto, DeliveryDto, WebhookDto } from './dto/webhook.dto.js';
import { maskUrl } from './webhook-payload.js';
import { type WebhookRow, webhookState } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

const ID = { name: 'id', description: "The webhook's id", format: 'uuid' };

/** A webhook as its owner sees it after creation: the URL masked, the secret never. */
function toDto(w: WebhookRow): WebhookDto {
  return {
    id: w.id,
    url: maskUrl(w.url),
    format: w.format,
    platforms: w.platforms,
    domains: w.domains,
    scope: w.scope,
    digest_minutes: w.digest_minutes,
    resolving_only: w.resolving_only,
    types: w.types,
    fields: w.fields,
    signed: w.has_secret,
    state: webhookState(w),
    created_at: w.created_at,
    last_attempt_at: w.last_attempt_at,
    last_status: w.last_status,
    last_error: w.last_error,
    failing_since: w.failing_since,
    paused_at: w.paused_at,
    delivered: w.delivered,
    given_up: w.given_up,
  };
}

/**
 * The webhooks of the key's user. Another user's webhook does not exist for this key: 404, as for keys. The
 * operator's (made with the CLI) belong to no user and are managed with the CLI.
 */
@ApiTags('Webhooks')
@RequireScope('write')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({
    summary: "The key's user's webhooks",
    description: 'Needs a key with the write scope. Oldest first; URLs masked, secrets never shown.',
  })
  @ApiEnvelope(WebhookDto, { isArray: true })
  async list(@CurrentKey() key: AuthenticatedKey) {
    return envelope((await this.webhooks.list(key.userId)).map(toDto));
  }

  @Post()
  @ApiOperation({
    summary: 'Add a webhook',
    description:
      'Needs a key with the write scope. The answer is the only one that shows the whole URL and the secret. ' +
      'A URL whose host is or resolves to a loopback, private, link-local or other special-use address is ' +
      'refused (400 invalid_body), and is refused again at each delivery; redirects are never followed.',
  })
  @ApiEnvelope(CreatedWebhookDto, { status: 201 })
  @ApiErrors('invalid_body', 'payload_too_large')
  async create(@CurrentKey() key: AuthenticatedKey, @Body() body: CreateWebhookDto) {
    // A refused webhook is a WebhookInputError, an AppError with the code invalid_body.
    const { chat_id: chatId, digest_minutes: digestMinutes, resolving_only: resolvingOnly, ...rest } = body;
    const input = { ...rest, chatId, digestMinutes, resolvingOnly, makeSecret: true };
    const { webhook, secret } = await this.webhooks.create(input, key.userId);
    return envelope({ ...toDto(webhook), url: webhook.url, secret });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook', description: 'Needs a key with the write scope.' })
  @ApiParam(ID)
  @ApiEnvelope(WebhookDto)
  @ApiErrors('invalid_id', 'not_found')
  async get(@CurrentKey() key: AuthenticatedKey, @Param('id', UuidPipe) id: string) {
    return envelope(toDto(await this.owned(key, id)));
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Remove a webhook, with its pending deliveries',
    description: 'Needs a key with the write scope.',
  })
  @ApiParam(ID)
  @ApiEnvelope(WebhookDto, { description: 'The webhook removed' })
  @ApiErrors('invalid_id', 'not_found')
  async remove(@CurrentKey() key: AuthenticatedKey, @Param('id', UuidPipe) id: string) {
    const webhook = await this.owned(key, id);
    if (!(await this.webhooks.removeOwned(id, key.userId))) throw notFound(id);
    return envelope(toDto(webhook));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a test message now',
    description:
      "Needs a key with the write scope. A message in the webhook's format, signed as its deliveries are, sent " +
      'at once and answered with the outcome (status delivered or given_up; a test is never retried). It is kept ' +
      'with the deliveries. One that gets through resumes a paused webhook.',
  })
  @ApiParam(ID)
  @ApiEnvelope(DeliveryDto, { description: 'The test delivery and its outcome' })
  @ApiErrors('invalid_id', 'not_found')
  async test(@CurrentKey() key: AuthenticatedKey, @Param('id', UuidPipe) id: string) {
    return envelope(await this.webhooks.test(await this.owned(key, id)));
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "A webhook's last 100 deliveries",
    description:
      'Needs a key with the write scope. Newest first: when each was queued, how many hosts or changes it tells ' +
      'of, its status, and its last attempt (HTTP status, duration, error).',
  })
  @ApiParam(ID)
  @ApiEnvelope(DeliveryDto, { isArray: true })
  @ApiErrors('invalid_id', 'not_found')
  async deliveries(@CurrentKey() key: AuthenticatedKey, @Param('id', UuidPipe) id: string) {
    await this.owned(key, id);
    return envelope(await this.webhooks.deliveries(id));
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a delivery again',
    description:
      'Needs a key with the write scope. A pending delivery is attempted at once, a delivered or given-up one ' +
      'anew (its hosts or changes as they were), with the full run of retries; one being attempted right now is ' +
      'left to that attempt. Resumes a paused webhook.',
  })
  @ApiParam(ID)
  @ApiParam({ name: 'delivery_id', description: "The delivery's id", format: 'uuid' })
  @ApiEnvelope(DeliveryDto, { status: 202, description: 'The delivery, pending' })
  @ApiErrors('invalid_id', 'not_found')
  async retry(
    @CurrentKey() key: AuthenticatedKey,
    @Param('id', UuidPipe) id: string,
    @Param('delivery_id', UuidPipe) deliveryId: string,
  ) {
    await this.owned(key, id);
    const delivery = await this.webhooks.retry(id, deliveryId);
    if (!delivery) throw AppError.notFound(`webhook ${id} has no delivery ${deliveryId}`);
    return envelope(delivery);
  }

  private async owned(key: AuthenticatedKey, id: string): Promise<WebhookRow> {
    const webhook = await this.webhooks.findOwned(id, key.userId);
    if (!webhook) throw notFound(id);
    return webhook;
  }
}

const notFound = (id: string) => AppError.notFound(`no webhook ${id}`);
