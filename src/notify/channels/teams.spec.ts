import { teams } from './teams.js';

describe('teams channel', () => {
  it('sends an Adaptive Card with the head, the lines, what is left and the link', () => {
    const message = () => ({ head: 'Head', lines: ['a', 'b'], total: 3, link: 'https://mon.example/x' });
    const card = JSON.parse((teams.render({ data: {}, message }, {}) as { body: string }).body) as {
      attachments: { content: { body: { text: string }[]; actions: { url: string }[] } }[];
    };
    const { content } = card.attachments[0];
    expect(content.body.map((b) => b.text)).toEqual(['Head', 'a\n\nb', '… and 1 more']);
    expect(content.actions[0].url).toBe('https://mon.example/x');
  });
});
