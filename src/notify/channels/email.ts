import { WebhookInputError } from '../webhook-input.error.js';
import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** An address as an email webhook takes it: no display name, no spaces, no quoting. */
const MAIL_ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const MAX_RECIPIENTS = 10;

/** The addresses of an email webhook's `mailto:` URL. */
export function mailRecipients(url: string): string[] {
  return decodeURIComponent(url.replace(/^mailto:/i, '').split('?')[0])
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

/**
 * A mail over SMTP_URL (WebhookSender sends what has a subject as a mail) to the addresses of a mailto: URL,
 * mailto:one@example.com[,two@example.com…], up to MAX_RECIPIENTS of them.
 */
export const email: Channel<'email'> = {
  format: 'email',
  checkUrl(text, env) {
    if (!/^mailto:/i.test(text)) throw new WebhookInputError("an email webhook's URL is mailto:ADDRESS[,ADDRESS…]");
    const to = mailRecipients(text);
    if (to.length === 0 || to.length > MAX_RECIPIENTS || !to.every((a) => MAIL_ADDRESS.test(a))) {
      throw new WebhookInputError(
        `an email webhook goes to 1 to ${MAX_RECIPIENTS} addresses: mailto:a@example.com,b@example.com`,
      );
    }
    if (!env.SMTP_URL || !env.SMTP_FROM) {
      throw new WebhookInputError('email webhooks need SMTP_URL and SMTP_FROM set on the service');
    }
    return `mailto:${to.join(',')}`;
  },
  // A list of addresses holds no secret.
  showsWholeUrl: (url) => url.startsWith('mailto:'),
  render: (notice) => {
    const m = notice.message();
    return { subject: m.head, text: messageText(m, Infinity, false) };
  },
};
