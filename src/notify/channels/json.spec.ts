import { json } from './json.js';
import { ours } from './text.js';

describe('json channel', () => {
  it('sends the event data as it is, and never makes the message', () => {
    let made = 0;
    const message = () => {
      made++;
      return { head: ours(''), lines: [], total: 0 };
    };
    expect(json.render({ data: { event: 'test', n: 1 }, message }, {})).toEqual({ body: '{"event":"test","n":1}' });
    expect(made).toBe(0);
  });

  it('is the channel a secret is made for', () => {
    expect(json.makesSecret).toBe(true);
  });
});
