import type { Channel, Message } from './channel.js';
import { chatLines } from './message-text.js';
import { written } from './text.js';

/**
 * Outside text in an Adaptive Card. A TextBlock renders a Markdown subset, links [title](url) among it, and Teams'
 * clients render its backslash escapes unevenly (the mobile apps show the backslash); "RichTextBlock does not
 * support Markdown" (Adaptive Cards' text features, learn.microsoft.com/adaptive-cards/create/textfeatures): its
 * TextRuns show their text as it is. So outside text goes in TextRuns only. What a TextRun still reads is the
 * {{DATE(…)}} and {{TIME(…)}} functions: a zero-width space between the braces keeps them as they were written.
 */
const outside = (text: string) => text.replace(/\{\{/g, '{\u200b{');

/** A line of text that renders no Markdown. */
const run = (text: string, style: Record<string, string>) => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text, ...style }],
});

/**
 * A Teams message as a Workflows "post to a channel when a webhook request is received" flow takes it: an
 * Adaptive Card, with the head in bold, a line a host in monospace, and the link as an action.
 */
function teamsCard(m: Message) {
  const lines = chatLines(m, outside);
  const more = m.total - lines.length;
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            run(written(m.head, outside), { weight: 'Bolder' }),
            ...lines.map((line, i) => ({
              ...run(line, { fontType: 'Monospace' }),
              ...(i > 0 ? { spacing: 'None' } : {}),
            })),
            ...(more > 0 ? [{ type: 'TextBlock', text: `… and ${more} more`, isSubtle: true }] : []),
          ],
          ...(m.link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in Subdomain Monitor', url: m.link }] } : {}),
        },
      },
    ],
  };
}

export const teams: Channel<'teams'> = {
  format: 'teams',
  render: (notice) => ({ body: JSON.stringify(teamsCard(notice.message())) }),
};
