import { HOSTILE, HOSTILE_HOSTS } from '../../../test/fixtures/webhook-batches.js';
import { WebhookInputError } from '../webhook-input.error.js';
import { renderPayload } from '../webhook-payload.js';
import { email, mailRecipients } from './email.js';
import { ours, text } from './text.js';

const smtp = { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'monitor@example.com' };
const check = (url: string) => email.checkUrl!(url, smtp);

describe('email channel', () => {
  it('stores a mailto: URL with its addresses only, decoded once, each domain in lower case, each once', () => {
    expect(check('MAILTO:a@example.com, b@example.com')).toBe('mailto:a@example.com,b@example.com');
    expect(check('mailto:a@example.com,%20b@Example.COM?subject=x')).toBe('mailto:a@example.com,b@example.com');
    expect(check('mailto:a%40example.com%2Cb@example.com,A@EXAMPLE.com,a@example.com')).toBe(
      'mailto:a@example.com,b@example.com,A@example.com',
    );
  });

  it('refuses an address that still holds % once decoded, which a second decoding would turn into others', () => {
    const twice = 'mailto:a%2540x.test%252cb%2540evil.test%252cc@example.com';
    expect(() => check(twice)).toThrow(WebhookInputError);
    expect(() => check(twice)).toThrow(/may not contain %/);
    expect(() => check('mailto:100%25@example.com')).toThrow(/may not contain %/);
  });

  it('refuses a malformed %-escape as the input it is', () => {
    expect(() => check('mailto:a%zz@example.com')).toThrow(WebhookInputError);
    expect(() => check('mailto:a%E0%A4%A@example.com')).toThrow(/malformed %-escape/);
  });

  it('mails the stored addresses as they are stored, decoding nothing again', () => {
    expect(mailRecipients('mailto:a@example.com,b@example.com')).toEqual(['a@example.com', 'b@example.com']);
    // A URL stored before % was refused: its one address is not split into three, nor mailed at all.
    expect(mailRecipients('mailto:a%40x.test%2cb%40evil.test%2cc@example.com')).toEqual([]);
    expect(mailRecipients(check('mailto:a@example.com,%20b@example.com'))).toEqual(['a@example.com', 'b@example.com']);
  });

  it('refuses another URL, a bad address, and a service with no SMTP server', () => {
    expect(() => check('https://example.com')).toThrow(WebhookInputError);
    expect(() => check('mailto:Someone <a@example.com>')).toThrow(/1 to 10 addresses/);
    expect(() => email.checkUrl!('mailto:a@example.com', { SMTP_URL: undefined, SMTP_FROM: undefined })).toThrow(
      /SMTP_URL and SMTP_FROM/,
    );
  });

  it('is shown whole, holding no secret', () => {
    expect(email.showsWholeUrl!('mailto:a@example.com')).toBe(true);
    expect(email.showsWholeUrl!('https://hooks.example.com/x')).toBe(false);
  });

  it('renders a mail: the head as subject, the lines unfenced', () => {
    const message = () => ({ head: ours('Head'), lines: [text`${'a'}`], total: 1 });
    expect(email.render({ data: {}, message }, {})).toEqual({ subject: 'Head', text: 'Head\n\na' });
  });

  it('writes hostile names as they are, without control characters: a plain-text mail has no markup', () => {
    const mail = renderPayload('email', HOSTILE_HOSTS) as { subject: string; text: string };
    expect(mail.subject).toBe(`30 new hosts on chan.test (hackerone, program ${HOSTILE.replace(/\n/g, '')})`);
  });
});
