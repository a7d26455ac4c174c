import type { Environment } from '../../config/environment.js';
import type { Text } from './text.js';

/** What a delivery sends: an HTTP body (every channel but email), or a mail. */
export type Outgoing = { body: string } | { subject: string; text: string };

/** Where a message points back to, and where a Telegram message goes. */
export interface MessageOptions {
  /** PUBLIC_URL, when it is set: messages link to the domain's new-host feed there. */
  publicUrl?: string;
  /** Telegram's chat_id. */
  chatId?: string | null;
}

/**
 * A message for people: a head line, up to CHAT_LINES lines of `total` ("… and N more"), and a link back (made
 * of PUBLIC_URL and a checked domain). Head and lines hold outside text, which each channel escapes for its markup.
 */
export interface Message {
  head: Text;
  lines: Text[];
  total: number;
  link?: string;
}

/**
 * What a delivery tells of, in both forms a channel may send: the event as data (the JSON channel's body), and
 * as a message for people (made only when a channel asks for it).
 */
export interface Notice {
  data: Record<string, unknown>;
  message(): Message;
}

/**
 * Everything particular to one channel. A channel leaves out what it does as the others do: its URL is an
 * http(s) endpoint checked for reachability, deliveries are POSTed to that URL, a chat id is refused, and a
 * secret is made only when one is asked for.
 */
export interface Channel<F extends string = string> {
  /** The name a webhook's `format` gives. */
  readonly format: F;
  /** The delivery, in the payload the receiving service documents. */
  render(notice: Notice, options: MessageOptions): Outgoing;
  /** A URL of another kind than http(s): checked (throwing WebhookInputError) and returned as it is stored. */
  checkUrl?(text: string, env: Pick<Environment, 'SMTP_URL' | 'SMTP_FROM'>): string;
  /** Whether a URL of this channel holds no secret, and is shown whole after the webhook is made. */
  showsWholeUrl?(url: string): boolean;
  /** Where a delivery is POSTed, from the webhook's URL. */
  endpoint?(url: string): string;
  /** The chat id the channel needs, and the error when it is missing or malformed. */
  readonly chatId?: { pattern: RegExp; problem: string };
  /** The webhooks the API makes a signing secret for when none is given. */
  readonly makesSecret?: boolean;
}
