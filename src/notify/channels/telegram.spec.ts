import { HOSTILE_EVENTS, HOSTILE_HOSTS, MASKED_LINK, OPTIONS } from '../../../test/fixtures/webhook-batches.js';
import { renderEventsPayload, renderPayload } from '../webhook-payload.js';
import { telegram } from './telegram.js';
import { ours, text } from './text.js';

const bodyOf = (outgoing: unknown) => JSON.parse((outgoing as { body: string }).body) as Record<string, unknown>;

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

  it('sends plain text to the chat, with no link preview in the form of Bot API 7.0', () => {
    const message = () => ({ head: ours('Head'), lines: [text`${'a'}`], total: 1 });
    const body = bodyOf(telegram.render({ data: {}, message }, { chatId: '@chan' }));
    expect(body).toEqual({ chat_id: '@chan', text: 'Head\n\na', link_preview_options: { is_disabled: true } });
  });

  it('sends hostile names and titles as plain text: no parse_mode, nothing read as a link, nobody mentioned', () => {
    for (const outgoing of [
      renderPayload('telegram', HOSTILE_HOSTS, OPTIONS),
      renderEventsPayload('telegram', HOSTILE_EVENTS, OPTIONS),
    ]) {
      const body = bodyOf(outgoing);
      expect(Object.keys(body).sort()).toEqual(['chat_id', 'link_preview_options', 'text']);
      expect(body.text).toContain(MASKED_LINK);
      expect(body.text).toContain('@\u2060everyone @\u2060here @\u2060durov');
      expect(body.text).not.toMatch(/@\w/);
    }
  });
});
