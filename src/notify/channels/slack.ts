import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/**
 * Outside text in Slack's mrkdwn. Slack's formatting reference (https://api.slack.com/reference/surfaces/formatting,
 * "Escaping text") names &, < and > as the characters to escape, and this is done on the whole message below: with
 * them escaped no name makes a link <url|text>, a mention or <!channel>. mrkdwn has no escape for its other marks,
 * and a code block ends at the next ```, so a backtick of outside text becomes ' : no name closes the block or opens
 * another.
 */
const outside = (text: string) => text.replace(/`/g, "'");

/**
 * Slack's incoming webhook: `{text}` in mrkdwn, the lines in a code block, and no previews. Slack neither links nor
 * unfurls what is inside a code block, so this is for what stands outside it (the dashboard's link); Discord's and
 * Telegram's messages are sent without previews too.
 */
export const slack: Channel<'slack'> = {
  format: 'slack',
  render: (notice) => ({
    body: JSON.stringify({
      text: messageText(notice.message(), Infinity, { fenced: true, prose: outside, code: outside })
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;'),
      unfurl_links: false,
      unfurl_media: false,
    }),
  }),
};
