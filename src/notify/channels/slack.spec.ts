import { DIGEST, fences, HOSTILE_EVENTS, HOSTILE_HOSTS, MASKED_LINK } from '../../../test/fixtures/webhook-batches.js';
import { renderDigestPayload, renderEventsPayload, renderPayload } from '../webhook-payload.js';
import { slack } from './slack.js';
import { ours, text } from './text.js';

const textOf = (outgoing: unknown) => (JSON.parse((outgoing as { body: string }).body) as { text: string }).text;

describe('slack channel', () => {
  it('fences the lines and escapes what Slack reads as a mention', () => {
    const message = () => ({
      head: ours('2 new hosts'),
      lines: [text`${'<!channel>.example.com'}`, text`${'a&b.example.com'}`],
      total: 2,
    });
    expect(textOf(slack.render({ data: {}, message }, {}))).toBe(
      '2 new hosts\n```\n&lt;!channel&gt;.example.com\na&amp;b.example.com\n```',
    );
  });

  it('asks Slack for no previews of links or media', () => {
    const message = () => ({ head: ours('1 new host'), lines: [text`${'www.example.com'}`], total: 1 });
    const body = JSON.parse((slack.render({ data: {}, message }, {}) as { body: string }).body) as object;
    expect(body).toEqual({ text: expect.any(String), unfurl_links: false, unfurl_media: false });
  });

  it.each([
    ['hosts of a hostile program', renderPayload('slack', HOSTILE_HOSTS)],
    ['hostile titles, names and evidence', renderEventsPayload('slack', HOSTILE_EVENTS)],
    ['a digest of both', renderDigestPayload('slack', DIGEST)],
  ])('keeps one code block and makes no link or mention of %s', (_, outgoing) => {
    const sent = textOf(outgoing);
    // Slack's links and mentions are all <…>: none is left, and the fences are ours alone.
    expect(sent).not.toMatch(/[<>]/);
    expect(fences(sent)).toBe(2);
    expect(sent.replace(/\n```\n/, '').replace(/\n```(\n|$)/, '')).not.toContain('`');
    expect(sent).toContain('&lt;!channel&gt; &lt;@123&gt;');
    expect(sent).toContain(MASKED_LINK);
  });
});
