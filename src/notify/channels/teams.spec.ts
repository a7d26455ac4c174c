import { DIGEST, HOSTILE, HOSTILE_EVENTS, HOSTILE_HOSTS, MASKED_LINK } from '../../../test/fixtures/webhook-batches.js';
import { renderDigestPayload, renderEventsPayload, renderPayload } from '../webhook-payload.js';
import { teams } from './teams.js';
import { ours, text } from './text.js';

type Element = { type: string; text?: string; inlines?: { type: string; text: string }[] };
const cardOf = (outgoing: unknown) =>
  (
    JSON.parse((outgoing as { body: string }).body) as {
      attachments: { content: { body: Element[]; actions?: { url: string }[] } }[];
    }
  ).attachments[0].content;

describe('teams channel', () => {
  it('sends an Adaptive Card with the head, a line a host, what is left and the link', () => {
    const message = () => ({
      head: ours('Head'),
      lines: [text`${'a'}`, text`${'b'}`],
      total: 3,
      link: 'https://mon.example/x',
    });
    const content = cardOf(teams.render({ data: {}, message }, {}));
    expect(content.body).toEqual([
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'Head', weight: 'Bolder' }] },
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'a', fontType: 'Monospace' }] },
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'b', fontType: 'Monospace' }], spacing: 'None' },
      { type: 'TextBlock', text: '… and 1 more', isSubtle: true },
    ]);
    expect(content.actions![0].url).toBe('https://mon.example/x');
  });

  it.each([
    ['hosts of a hostile program', renderPayload('teams', HOSTILE_HOSTS)],
    ['hostile titles, names and evidence', renderEventsPayload('teams', HOSTILE_EVENTS)],
    ['a digest of both', renderDigestPayload('teams', DIGEST)],
  ])('puts outside text only where no Markdown is read, for %s', (_, outgoing) => {
    const { body } = cardOf(outgoing);
    // TextBlocks render Markdown: the only one left says how many more there are, in words of ours.
    for (const block of body.filter((b) => b.type === 'TextBlock')) expect(block.text).toMatch(/^… and \d+ more$/);
    const runs = body.flatMap((b) => b.inlines ?? []);
    expect(runs.length).toBe(body.filter((b) => b.type === 'RichTextBlock').length);
    expect(runs.every((r) => r.type === 'TextRun')).toBe(true);
    expect(runs.map((r) => r.text).join('\n')).toContain(MASKED_LINK);
  });

  it("shows a hostile program name as it is, but for Adaptive Cards' date function", () => {
    const [head] = cardOf(renderPayload('teams', HOSTILE_HOSTS)).body;
    const shown = HOSTILE.replace(/\n/g, '').replace('{{', '{\u200b{');
    expect(head.inlines).toEqual([
      { type: 'TextRun', text: `30 new hosts on chan.test (hackerone, program ${shown})`, weight: 'Bolder' },
    ]);
  });
});
