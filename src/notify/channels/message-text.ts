import type { Message } from './channel.js';

/** Lines of hosts a chat message lists before "… and N more". */
const CHAT_LINES = 25;

/** How many of a message's lines fit within `max` characters, as `size` measures the text they make. */
export function fit(m: Message, max: number, size: (lines: string[], more: number) => number) {
  let shown = Math.min(m.lines.length, CHAT_LINES);
  while (shown > 0 && size(m.lines.slice(0, shown), m.total - shown) > max) shown--;
  return { shown, more: m.total - shown };
}

/** The head line, up to CHAT_LINES lines (in a code block when `fenced`), "… and N more", the link. */
export function messageText(m: Message, max: number, fenced: boolean): string {
  const build = (lines: string[], more: number) => {
    const block =
      lines.length === 0 ? '' : fenced ? `\n\`\`\`\n${lines.join('\n')}\n\`\`\`` : `\n\n${lines.join('\n')}`;
    return `${m.head}${block}${more > 0 ? `\n… and ${more} more` : ''}${m.link ? `\n${m.link}` : ''}`;
  };
  const { shown, more } = fit(m, max, (lines, rest) => build(lines, rest).length);
  return build(m.lines.slice(0, shown), more).slice(0, max);
}
