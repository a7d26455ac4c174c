import { slack } from './slack.js';

describe('slack channel', () => {
  it('fences the lines and escapes what Slack reads as a mention', () => {
    const message = () => ({ head: '2 new hosts', lines: ['<!channel>.example.com', 'a&b.example.com'], total: 2 });
    const { text } = JSON.parse((slack.render({ data: {}, message }, {}) as { body: string }).body) as { text: string };
    expect(text).toBe('2 new hosts\n```\n&lt;!channel&gt;.example.com\na&amp;b.example.com\n```');
  });
});
