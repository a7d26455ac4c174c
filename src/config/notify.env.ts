import type { OnOff } from './env-transforms.js';
import { IntVar, OnOffVar, StringVar } from './env-var.decorator.js';

/** Webhooks and email: delivery attempts, their waits, and the SMTP server. */
export class NotifyEnvironment {
  @IntVar({
    default: 10,
    min: 1,
    max: 300,
    description: 'Seconds a webhook endpoint has to answer a delivery before the attempt counts as failed.',
  })
  WEBHOOK_TIMEOUT_SECONDS: number;

  @IntVar({
    default: 6,
    min: 1,
    max: 20,
    description: 'Attempts at a webhook delivery before it is given up (the waits between them grow fourfold).',
  })
  WEBHOOK_MAX_ATTEMPTS: number;

  @IntVar({
    default: 30,
    min: 1,
    max: 86_400,
    description:
      'Seconds before the second attempt at a failed webhook delivery; each later wait is four times longer.',
  })
  WEBHOOK_RETRY_SECONDS: number;

  @OnOffVar({
    default: 'off',
    description:
      'Let webhooks reach loopback, private, link-local and other special-use addresses: on or off. Off refuses such a ' +
      'URL when it is added, and again at each delivery (a name can resolve elsewhere by then).',
  })
  WEBHOOK_ALLOW_PRIVATE: OnOff;

  @IntVar({
    default: 30,
    min: 0,
    max: 3600,
    description:
      'Seconds a digest webhook waits after its window ends before it reads the window, so that writes of ' +
      'transactions still open as it ended are in it.',
  })
  WEBHOOK_DIGEST_LAG_SECONDS: number;

  @IntVar({
    default: 10,
    min: 0,
    max: 3600,
    description:
      'Seconds a webhook delivery of CT-found hosts gathers the hosts of later pages of the same domain before it ' +
      'is sent, and a delivery of changes (webhook types other than host_new) the later changes of its domain: ' +
      'a burst makes one message per webhook.',
  })
  CT_WEBHOOK_GATHER_SECONDS: number;

  @StringVar({
    secret: true,
    matches: /^smtps?:\/\/\S+$/,
    message: 'SMTP_URL must be an smtp:// or smtps:// URL',
    description:
      'SMTP server email webhooks are sent through, smtp://user:password@host:587 (STARTTLS when offered) or ' +
      'smtps://…:465; unset: no email webhooks.',
  })
  SMTP_URL?: string;

  @StringVar({
    matches: /^[^\r\n]*[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?$/,
    message: 'SMTP_FROM must be an email address',
    description: 'Sender address of email webhooks, such as "Subdomain Monitor <monitor@example.com>".',
  })
  SMTP_FROM?: string;
}
