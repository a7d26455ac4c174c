import { discord } from './discord.js';

describe('discord channel', () => {
  it('pings nobody and keeps within 2,000 characters, saying how many more there are', () => {
    const lines = Array.from({ length: 25 }, (_, i) => `${'x'.repeat(150)}${i}.example.com`);
    const message = () => ({ head: '40 new hosts', lines, total: 40 });
    const body = JSON.parse((discord.render({ data: {}, message }, {}) as { body: string }).body) as {
      content: string;
      allowed_mentions: unknown;
    };
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.content.length).toBeLessThanOrEqual(2000);
    expect(body.content).toMatch(/\n… and \d+ more$/);
  });
});
