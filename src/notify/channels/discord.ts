import type { Channel } from './channel.js';
import { messageText } from './message-text.js';

/** The longest message Discord takes, in characters. */
const MAX_CHARS = 2000;
/** The message flag SUPPRESS_EMBEDS: no preview card of a link the message holds. */
const SUPPRESS_EMBEDS = 1 << 2;

/** Discord's markdown marks: emphasis, spoiler, masked link, heading, list and quote, and < of <@id>, <#id>, <t:…>. */
const MARKS = /[\\*_~|[\]()<>#-]/g;

/**
 * Outside text in Discord's markdown, as Discord's "Markdown Text 101" (support.discord.com/hc/en-us/articles/
 * 210298617) and message formatting reference (discord.com/developers/docs/reference#message-formatting) describe
 * it: a backslash before a mark shows the mark as it is, so no name makes a masked link [text](url), a mention,
 * bold, a spoiler, a heading, a list or a quote. @everyone and @here get a zero-width space after the @ (and
 * allowed_mentions pings no one anyway). Backticks have no escape inside a code block: they become ' everywhere,
 * so no name closes the block or opens another.
 */
const code = (text: string) => text.replace(/`/g, "'");
const prose = (text: string) =>
  code(text)
    .replace(MARKS, '\\$&')
    .replace(/@(everyone|here)/gi, '@\u200b$1');

/** Discord's incoming webhook, told to ping nobody whatever a name holds, and to show no link preview. */
export const discord: Channel<'discord'> = {
  format: 'discord',
  render: (notice) => ({
    body: JSON.stringify({
      content: messageText(notice.message(), MAX_CHARS, { fenced: true, prose, code }),
      allowed_mentions: { parse: [] },
      flags: SUPPRESS_EMBEDS,
    }),
  }),
};
