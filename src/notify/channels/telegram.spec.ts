import { telegram } from './telegram.js';

describe('telegram channel', () => {
  it("posts to the bot URL's sendMessage", () => {
    expect(telegram.endpoint!('https://api.telegram.org/bot123:abc/')).toBe(
      'https://api.telegram.org/bot123:abc/sendMessage',
    );
  });

  it('takes a numeric chat id or a channel name, nothing else', () => {
    const { pattern } = telegram.chatId!;
    expect(['-1001234567890', '42', '@my_channel'].every((id) => pattern.test(id))).toBe(true);
    expect(['', '@ab', 'chat', '1e5'].some((id) => pattern.test(id))).toBe(false);
  });

  it('sends plain text to the chat, with no link preview', () => {
    const message = () => ({ head: 'Head', lines: ['a'], total: 1 });
    const body = JSON.parse((telegram.render({ data: {}, message }, { chatId: '@chan' }) as { body: string }).body);
    expect(body).toEqual({ chat_id: '@chan', text: 'Head\n\na', disable_web_page_preview: true });
  });
});
