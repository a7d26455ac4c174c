import type { Channel, Message } from './channel.js';
import { fit } from './message-text.js';

/**
 * A Teams message as a Workflows "post to a channel when a webhook request is received" flow takes it: an
 * Adaptive Card, with the head in bold, the lines in monospace, and the link as an action.
 */
function teamsCard(m: Message) {
  const { shown, more } = fit(m, Infinity, (lines) => lines.join('\n').length);
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
            { type: 'TextBlock', text: m.head, weight: 'Bolder', wrap: true },
            { type: 'TextBlock', text: m.lines.slice(0, shown).join('\n\n'), fontType: 'Monospace', wrap: true },
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
