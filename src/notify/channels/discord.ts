import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** The longest message Discord takes, in characters. */
const MAX_CHARS = 2000;

/** Discord's incoming webhook, told to ping nobody whatever a name holds. */
export const discord: Channel<'discord'> = {
  format: 'discord',
  render: (notice) => ({
    body: JSON.stringify({ content: messageText(notice.message(), MAX_CHARS, true), allowed_mentions: { parse: [] } }),
  }),
};
