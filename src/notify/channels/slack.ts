import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** Slack's incoming webhook: `<`, `>` and `&` are escaped, so no name makes a mention such as <!channel>. */
export const slack: Channel<'slack'> = {
  format: 'slack',
  render: (notice) => ({
    body: JSON.stringify({
      text: messageText(notice.message(), Infinity, true)
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;'),
    }),
  }),
};
