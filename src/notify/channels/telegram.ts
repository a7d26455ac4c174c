import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** The longest message Telegram takes, in characters. */
const MAX_CHARS = 4096;

/**
 * The Bot API's sendMessage, to the bot URL (https://api.telegram.org/bot<token>) and a chat: plain text (no
 * parse_mode), so nothing a name holds is read as markup.
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
      text: messageText(notice.message(), MAX_CHARS, false),
      disable_web_page_preview: true,
    }),
  }),
};
