import { CHANNELS, channelOf, WEBHOOK_FORMATS } from './index.js';
import { ours, text } from './text.js';

const notice = {
  data: { event: 'test', delivery_id: 'd1' },
  message: () => ({ head: ours('Head'), lines: [text`${'a.example.com'}`], total: 1 }),
};

describe('channels', () => {
  it('lists each format once, in the order the API documents', () => {
    expect(WEBHOOK_FORMATS).toEqual(['json', 'slack', 'discord', 'teams', 'telegram', 'email']);
  });

  it('finds each channel by its format', () => {
    for (const channel of CHANNELS) expect(channelOf(channel.format)).toBe(channel);
  });

  it('renders a body of JSON for every channel that posts, and a mail for email', () => {
    for (const channel of CHANNELS) {
      const outgoing = channel.render(notice, {});
      if ('subject' in outgoing) expect(channel.format).toBe('email');
      else expect(() => JSON.parse(outgoing.body) as unknown).not.toThrow();
    }
  });
});
