import type { Message } from './channel.js';
import { written } from './text.js';

/** Lines of hosts a chat message lists before "… and N more". */
const CHAT_LINES = 25;

/** How a channel writes a message as one text: its lines in a code block or not, and how it escapes outside text. */
export interface Writing {
  fenced: boolean;
  /** Outside text in the head, or in lines that are not fenced. */
  prose: (outside: string) => string;
  /** Outside text in the code block. */
  code: (outside: string) => string;
}

/** Up to CHAT_LINES of the message's lines, written out as `escape` writes outside text. */
export function chatLines(m: Message, escape: (outside: string) => string): string[] {
  return m.lines.slice(0, CHAT_LINES).map((line) => written(line, escape));
}

/** How many of `lines` fit within `max` characters, as `size` measures the text they make. */
export function fit(lines: string[], total: number, max: number, size: (shown: string[], more: number) => number) {
  let shown = lines.length;
  while (shown > 0 && size(lines.slice(0, shown), total - shown) > max) shown--;
  return { shown: lines.slice(0, shown), more: total - shown };
}

/** The head line, up to CHAT_LINES lines (in a code block when `fenced`), "… and N more", the link. */
export function messageText(m: Message, max: number, how: Writing): string {
  const head = written(m.head, how.prose);
  const build = (lines: string[], more: number) => {
    const block =
      lines.length === 0 ? '' : how.fenced ? `\n\`\`\`\n${lines.join('\n')}\n\`\`\`` : `\n\n${lines.join('\n')}`;
    return `${head}${block}${more > 0 ? `\n… and ${more} more` : ''}${m.link ? `\n${m.link}` : ''}`;
  };
  const lines = chatLines(m, how.fenced ? how.code : how.prose);
  const { shown, more } = fit(lines, m.total, max, (some, rest) => build(some, rest).length);
  // Cut only when no line fits, so never inside the code block: its fences stay paired.
  return build(shown, more).slice(0, max);
}
