import { WebhookInputError } from '../webhook-input.error.js';
import { email, mailRecipients } from './email.js';

const smtp = { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'monitor@example.com' };

describe('email channel', () => {
  it('reads the addresses of a mailto: URL', () => {
    expect(mailRecipients('mailto:a@example.com,%20b@example.com?subject=x')).toEqual([
      'a@example.com',
      'b@example.com',
    ]);
  });

  it('stores a mailto: URL with its addresses only', () => {
    expect(email.checkUrl!('MAILTO:a@example.com, b@example.com', smtp)).toBe('mailto:a@example.com,b@example.com');
  });

  it('refuses another URL, a bad address, and a service with no SMTP server', () => {
    expect(() => email.checkUrl!('https://example.com', smtp)).toThrow(WebhookInputError);
    expect(() => email.checkUrl!('mailto:Someone <a@example.com>', smtp)).toThrow(/1 to 10 addresses/);
    expect(() => email.checkUrl!('mailto:a@example.com', { SMTP_URL: undefined, SMTP_FROM: undefined })).toThrow(
      /SMTP_URL and SMTP_FROM/,
    );
  });

  it('is shown whole, holding no secret', () => {
    expect(email.showsWholeUrl!('mailto:a@example.com')).toBe(true);
    expect(email.showsWholeUrl!('https://hooks.example.com/x')).toBe(false);
  });

  it('renders a mail: the head as subject, the lines unfenced', () => {
    const message = () => ({ head: 'Head', lines: ['a'], total: 1 });
    expect(email.render({ data: {}, message }, {})).toEqual({ subject: 'Head', text: 'Head\n\na' });
  });
});
