import {
  DIGEST,
  fences,
  HOSTILE_EVENTS,
  HOSTILE_HOSTS,
  MASKED_LINK,
  unescaped,
} from '../../../test/fixtures/webhook-batches.js';
import { renderDigestPayload, renderEventsPayload, renderPayload } from '../webhook-payload.js';
import { discord } from './discord.js';
import { ours, text } from './text.js';

type Body = { content: string; allowed_mentions: unknown; flags: number };
const bodyOf = (outgoing: unknown) => JSON.parse((outgoing as { body: string }).body) as Body;

describe('discord channel', () => {
  it('pings nobody, shows no link preview, and keeps within 2,000 characters, saying how many more there are', () => {
    const lines = Array.from({ length: 25 }, (_, i) => text`${'x'.repeat(150)}${i}.example.com`);
    const message = () => ({ head: ours('40 new hosts'), lines, total: 40 });
    const body = bodyOf(discord.render({ data: {}, message }, {}));
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.flags).toBe(1 << 2);
    expect(body.content.length).toBeLessThanOrEqual(2000);
    expect(body.content).toMatch(/\n… and \d+ more$/);
  });

  it('escapes the marks of a hostile program name, outside the code block', () => {
    const { content } = bodyOf(renderPayload('discord', HOSTILE_HOSTS));
    const head = content.split('\n')[0];
    expect(head).toContain('program \\[Verify your account\\]\\(https://evil.example/login\\)');
    for (const mark of ['[', ']', '*', '_', '~', '|', '<', '>', '#']) expect(unescaped(head, mark)).toBe(false);
    expect(head).toContain("''' 'x' ''y''");
    expect(head).toContain('@\u200beveryone @\u200bhere');
    expect(head).not.toContain('Heading\n');
  });

  it.each([
    ['hosts of a hostile program', renderPayload('discord', HOSTILE_HOSTS)],
    ['hostile titles, names and evidence', renderEventsPayload('discord', HOSTILE_EVENTS)],
    ['a digest of both', renderDigestPayload('discord', DIGEST)],
  ])('keeps one code block, with no masked link outside it, for %s', (_, outgoing) => {
    const { content } = bodyOf(outgoing);
    expect(fences(content)).toBe(2);
    const [before, block, after] = content.split('```');
    expect(block).not.toContain('`');
    for (const prose of [before, after]) expect(unescaped(prose, '[')).toBe(false);
    expect(content.length).toBeLessThanOrEqual(2000);
  });

  it('quotes a hostile title as it is inside the code block, where Discord reads no markup', () => {
    const { content } = bodyOf(renderEventsPayload('discord', HOSTILE_EVENTS));
    expect(content.split('```')[1]).toContain(`http_changed www.chan.test: 200 "Home" → 200 "${MASKED_LINK}"`);
  });
});
