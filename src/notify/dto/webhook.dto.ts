import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { EVENT_TYPES, type EventType } from '../../events/dto/events.query.js';
import { SCOPE_MODES, type ScopeMode } from '../../hosts/model/knowledge-filter.js';
import { HOST_FIELDS, type HostField } from '../../hosts/model/host-fields.js';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../channels/index.js';

const FORMAT =
  'json: the event as JSON, signed with the secret (X-Subdomain-Monitor-Signature-256); slack, discord: the ' +
  "service's incoming-webhook message; teams: an Adaptive Card for a Teams Workflows webhook; telegram: the Bot " +
  "API sendMessage (url https://api.telegram.org/bot<token>, with chat_id); email: a mail over the service's " +
  'SMTP server (url mailto:a@example.com[,b@example.com…])';

const SCOPE =
  "in: hosts no exclusion rule of their domain names; out: only those a rule names; all. A host's scope_changed " +
  'is told whatever the scope';
const DIGEST =
  'One message per this many minutes with the new hosts and changes of the window, none for a window where ' +
  'nothing happened; null: a message as they come';
const RESOLVING = 'Digests only: new hosts whose DNS answer is resolved when the digest is made';
const FIELDS =
  `What is known of each new host its deliveries carry, from the host lists' fields vocabulary (${HOST_FIELDS.join(', ')}), ` +
  'as known when a delivery is sent: a scan resolves its new hosts (RESOLVE=on) before it tells of them, and ' +
  'queues their probes (PROBE=on); hosts of the CT logs are gathered for CT_WEBHOOK_GATHER_SECONDS while they ' +
  'are resolved. json: ' +
  'extra keys of each host; chat and e-mail: the flat ones (ips, cname, status, title) after each host name';

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    description:
      'The URL, masked: its origin and at most the first word of its path. The whole URL (where chat services ' +
      'keep their tokens) is shown once, in the answer that creates the webhook',
    example: 'https://hooks.slack.com/services/…',
  })
  url: string;
  @ApiProperty({ enum: WEBHOOK_FORMATS, description: FORMAT }) format: WebhookFormat;
  @ApiProperty({ type: [String], nullable: true, description: "Only these platforms' domains; null: all" })
  platforms: string[] | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'Only these root domains (a removed domain drops out); null: all',
  })
  domains: string[] | null;
  @ApiProperty({ enum: SCOPE_MODES, description: SCOPE }) scope: ScopeMode;
  @ApiProperty({ type: 'integer', nullable: true, description: DIGEST }) digest_minutes: number | null;
  @ApiProperty({ description: RESOLVING }) resolving_only: boolean;
  @ApiProperty({ enum: EVENT_TYPES, isArray: true, description: 'The change types it hears of' })
  types: EventType[];
  @ApiProperty({ enum: HOST_FIELDS, isArray: true, description: FIELDS }) fields: HostField[];
  @ApiProperty({ description: 'Whether deliveries are signed (json webhooks with a secret)' }) signed: boolean;
  @ApiProperty({
    enum: ['active', 'failing', 'paused'],
    description:
      'failing: the last attempt failed; paused: attempts failed for 24 hours in a row, and none is made until a ' +
      'retry (POST …/deliveries/{delivery_id}/retry) or a test delivery that gets through',
  })
  state: 'active' | 'failing' | 'paused';
  @ApiProperty({ type: 'string', format: 'date-time' }) created_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_attempt_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The endpoint's HTTP status at the last attempt" })
  last_status: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why the last attempt failed' })
  last_error: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Failing since then' })
  failing_since: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) paused_at: string | null;
  @ApiProperty({ type: 'integer', description: 'Deliveries that got through' }) delivered: number;
  @ApiProperty({ type: 'integer', description: 'Deliveries given up after their last attempt' }) given_up: number;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'The whole URL: shown this once only' }) declare url: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The secret json deliveries are signed with (HMAC-SHA256 of the body, hex, after "sha256=") — made when ' +
      'none is given. Shown this once only; null for chat formats',
  })
  secret: string | null;
}

export class CreateWebhookDto {
  @ApiProperty({
    description:
      'An http or https URL (email: mailto:ADDRESS[,ADDRESS…], up to 10, stored decoded once; an address that ' +
      'still holds % once decoded is refused). Refused when its host is or resolves ' +
      'to a loopback, private, link-local or other special-use address (unless the service runs with ' +
      'WEBHOOK_ALLOW_PRIVATE=on); checked again at each delivery',
    example: 'https://hooks.example.com/subdomain-monitor',
    maxLength: 2048,
  })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  @IsString({ message: 'url must be a string' })
  @IsDefined({ message: 'url is required' })
  url: string;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, default: 'json', description: FORMAT })
  @IsIn(WEBHOOK_FORMATS, { message: `format must be one of ${WEBHOOK_FORMATS.join(', ')}` })
  @IsOptional()
  format?: WebhookFormat;

  @ApiPropertyOptional({
    type: [String],
    description: "Only these platforms' domains (slugs); all when left out",
    example: ['hackerone'],
    maxItems: 100,
  })
  @ArrayMaxSize(100, { message: 'platforms may name at most 100' })
  @IsString({ each: true, message: 'platforms must be a list of strings' })
  @IsArray({ message: 'platforms must be a list' })
  @IsOptional()
  platforms?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Only these tracked root domains; all when left out. With platforms too, both must hold',
    example: ['example.com'],
    maxItems: 100,
  })
  @ArrayMaxSize(100, { message: 'domains may name at most 100' })
  @IsString({ each: true, message: 'domains must be a list of strings' })
  @IsArray({ message: 'domains must be a list' })
  @IsOptional()
  domains?: string[];

  @ApiPropertyOptional({ enum: SCOPE_MODES, default: 'in', description: SCOPE })
  @IsIn(SCOPE_MODES, { message: `scope must be one of ${SCOPE_MODES.join(', ')}` })
  @IsOptional()
  scope?: ScopeMode;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10080, description: DIGEST })
  @Max(10080, { message: 'digest_minutes must be at most 10080' })
  @Min(1, { message: 'digest_minutes must be at least 1' })
  @IsInt({ message: 'digest_minutes must be a whole number' })
  @IsOptional()
  digest_minutes?: number;

  @ApiPropertyOptional({ default: false, description: `${RESOLVING}; needs digest_minutes` })
  @IsBoolean({ message: 'resolving_only must be true or false' })
  @IsOptional()
  resolving_only?: boolean;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    default: ['host_new'],
    description: 'The change types to hear of',
  })
  @ArrayMaxSize(EVENT_TYPES.length, { message: `types must hold at most ${EVENT_TYPES.length} types` })
  @IsString({ each: true, message: 'types must be a list of strings' })
  @IsArray({ message: 'types must be a list' })
  @IsOptional()
  types?: string[];

  @ApiPropertyOptional({
    enum: HOST_FIELDS,
    isArray: true,
    maxItems: HOST_FIELDS.length,
    default: [],
    description: FIELDS,
    example: ['ips', 'title'],
  })
  @ArrayMaxSize(HOST_FIELDS.length, { message: `fields must hold at most ${HOST_FIELDS.length} names` })
  @IsIn(HOST_FIELDS, { each: true, message: `fields must be a list of ${HOST_FIELDS.join(', ')}` })
  @IsString({ each: true, message: 'fields must be a list of strings' })
  @IsArray({ message: 'fields must be a list' })
  @IsOptional()
  fields?: string[];

  @ApiPropertyOptional({
    description: 'Telegram only, and required there: the chat, a number (-1001234567890) or @channelname',
    example: '-1001234567890',
    maxLength: 40,
  })
  @MaxLength(40, { message: 'chat_id must be at most 40 characters' })
  @IsString({ message: 'chat_id must be a string' })
  @IsOptional()
  chat_id?: string;

  @ApiPropertyOptional({
    description: 'The secret json deliveries are signed with, at least 16 characters; made when not given',
    minLength: 16,
    maxLength: 256,
  })
  @MaxLength(256, { message: 'secret must be at most 256 characters' })
  @IsString({ message: 'secret must be a string' })
  @IsOptional()
  secret?: string;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    enum: ['new_hosts', 'host_events', 'digest', 'test'],
    description:
      'new_hosts: new hosts of a scan or the CT logs; host_events: changes; digest: a digest window; test: a ' +
      'test delivery',
  })
  kind: string;
  @ApiProperty({ type: 'string', format: 'date-time', description: 'When it was queued' }) created_at: string;
  @ApiProperty({ type: 'integer', description: 'Hosts or changes it tells of (0 for a test)' }) event_count: number;
  @ApiProperty({
    enum: ['pending', 'delivered', 'given_up'],
    description: 'pending: not attempted yet, or to be attempted again at next_attempt_at',
  })
  status: string;
  @ApiProperty({ type: 'integer' }) attempts: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_attempt_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The endpoint's HTTP status at the last attempt" })
  http_status: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'How long the last attempt took, in milliseconds' })
  duration_ms: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the last attempt failed: HTTP 5xx, timed out, ECONNREFUSED, private address refused, …',
  })
  error: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Pending: the next attempt' })
  next_attempt_at: string | null;
}
