import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** The longest message Telegram takes, in characters. */
const MAX_CHARS = 4096;

/**
 * Outside text in a Telegram message. It is sent with no parse_mode and no entities, and the Bot API reads markup
 * only in the mode parse_mode names (core.telegram.org/bots/api#formatting-options): a title's [text](url) or
 * <a href> stays text, and no link is masked. What Telegram still finds in plain text is a bare URL (shown as it
 * is) and an @username, which notifies that user: a word joiner after the @ keeps a name from mentioning anyone.
 */
const outside = (text: string) => text.replace(/@(?=\w)/g, '@\u2060');

/**
 * The Bot API's sendMessage, to the bot URL (https://api.telegram.org/bot<token>) and a chat, as plain text with
 * no link preview (link_preview_options, which replaced disable_web_page_preview in Bot API 7.0).
 */
export const telegram: Channel<'telegram'> = {
  format: 'telegram',
  // A (negative, for groups and channels) number, or a public channel's @name.
  chatId: {
    pattern: /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/,
    problem: 'a telegram webhook needs a chat id: a number (-1001234567890) or @channelname',
  },
  endpoint: (url) => `${url.replace(/\/+$/, '')}/sendMessage`,
  render: (notice, options) => ({
    body: JSON.stringify({
      chat_id: options.chatId,
      text: messageText(notice.message(), MAX_CHARS, { fenced: false, prose: outside, code: outside }),
      link_preview_options: { is_disabled: true },
    }),
  }),
};
