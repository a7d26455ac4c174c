import { WebhookInputError } from '../webhook-input.error.js';
import type { Channel } from './channel.js';
import { messageText } from './message-text.js';
import { plain } from './text.js';

/**
 * An address as an email webhook stores it: no display name, no spaces, no quoting, and no % (which RFC 5322
 * allows, but which would be read as an escape by whoever decodes the URL once more).
 */
const MAIL_ADDRESS =
  /^[A-Za-z0-9.!#$&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const MAX_RECIPIENTS = 10;
const FORM = 'mailto:a@example.com,b@example.com';

/**
 * The addresses a mailto: URL as given names (RFC 6068: percent-encoded, comma-separated, headers after ?),
 * decoded once, each with its domain in lower case (domains are case-insensitive), each once.
 */
function givenAddresses(url: string): string[] {
  let list: string;
  try {
    list = decodeURIComponent(url.replace(/^mailto:/i, '').split('?')[0]);
  } catch {
    throw new WebhookInputError(`an email webhook's URL has a malformed %-escape: ${FORM}`);
  }
  const addresses = list
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .map((a) => a.replace(/@[^@]*$/, (domain) => domain.toLowerCase()));
  return [...new Set(addresses)];
}

/**
 * The addresses of an email webhook, from its stored URL: read as stored, never decoded again (they were decoded
 * once, and hold no %, when the webhook was made). One that is not of the stored form is not mailed.
 */
export function mailRecipients(url: string): string[] {
  return url
    .replace(/^mailto:/i, '')
    .split(',')
    .filter((a) => MAIL_ADDRESS.test(a));
}

/**
 * A mail over SMTP_URL (WebhookSender sends what has a subject as a mail) to the addresses of a mailto: URL,
 * mailto:one@example.com[,two@example.com…], up to MAX_RECIPIENTS of them. Plain text: nothing in it is markup.
 */
export const email: Channel<'email'> = {
  format: 'email',
  checkUrl(text, env) {
    if (!/^mailto:/i.test(text)) throw new WebhookInputError("an email webhook's URL is mailto:ADDRESS[,ADDRESS…]");
    const to = givenAddresses(text);
    if (to.some((a) => a.includes('%'))) {
      // a%2540x.test is a%40x.test once decoded: an address encoded twice, which a second decoding would change.
      throw new WebhookInputError(`an email address may not contain % once the URL's %-escapes are decoded: ${FORM}`);
    }
    if (to.length === 0 || to.length > MAX_RECIPIENTS || !to.every((a) => MAIL_ADDRESS.test(a))) {
      throw new WebhookInputError(`an email webhook goes to 1 to ${MAX_RECIPIENTS} addresses: ${FORM}`);
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
    return {
      subject: plain(m.head),
      text: messageText(m, Infinity, { fenced: false, prose: (s) => s, code: (s) => s }),
    };
  },
};
