import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { LoopbackSmtp } from './fixtures/smtp-server.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';

const PUBLIC_URL = 'https://monitor.example';
const LINK = `${PUBLIC_URL}/api/v1/domains/chan.test/subdomains/new`;
/** A program name as a scope list may carry it: words a chat service would act on, a masked link, backticks. */
const PROGRAM = 'Chan <!channel> @everyone & co `[Verify your account](https://evil.example/login)`';

/**
 * Each channel a webhook can use, after a real scan (a loopback crt.sh) of 30 new hosts: the chat services'
 * documented incoming-webhook payloads to a loopback receiver, Telegram's sendMessage, and a mail through a
 * loopback SMTP server. Each message names the platform, the program and the first 25 hosts, says how many more
 * there are, and links back to PUBLIC_URL.
 */
describe('webhook channels', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let receiver: Receiver;
  let smtp: LoopbackSmtp;
  let owner: Record<string, string>;
  const hosts = Array.from({ length: 30 }, (_, i) => `h${String(i).padStart(2, '0')}.chan.test`);

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    receiver = await new Receiver().start();
    smtp = await new LoopbackSmtp().start();
    t = await startTestApp({
      ...crtshWorker(crt),
      PUBLIC_URL,
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Subdomain Monitor <monitor@example.com>',
    });
    owner = bearer(await t.token(['read', 'write']));
    await seedDomain(t, { domain: 'chan.test', platform: 'hackerone', program: PROGRAM });
    const add = async (body: object) => {
      const res = await t.post('/webhooks', { domains: ['chan.test'], ...body }, owner);
      expect(res.status).toBe(201);
    };
    await add({ url: `${receiver.url}/slack`, format: 'slack' });
    await add({ url: `${receiver.url}/discord`, format: 'discord' });
    await add({ url: `${receiver.url}/teams`, format: 'teams' });
    await add({ url: `${receiver.url}/bot123456:AAF-secret`, format: 'telegram', chat_id: '-1001234567890' });
    await add({ url: 'mailto:alice@example.com,bob@example.com', format: 'email' });
    await scanThroughApi(t, crt, owner, 'chan.test', hosts);
    await waitFor('every channel', () =>
      receiver.received.length === 4 && smtp.mails.length === 1 ? true : undefined,
    );
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await smtp.close();
    await crt.close();
  });

  const only = (path: string) => {
    const got = receiver.at(path);
    expect(got).toHaveLength(1);
    expect(got[0].headers['content-type']).toBe('application/json');
    return JSON.parse(got[0].body);
  };
  const head = `30 new hosts on chan.test (hackerone, program ${PROGRAM})`;
  /** The hosts a message lists, in its order (hosts first seen in one scan have no order among them): 25 of the 30. */
  const listedIn = (text: string, separator = '\n') => {
    const names = text.match(/h\d\d\.chan\.test/g) ?? [];
    expect(new Set(names).size).toBe(25);
    expect(names.every((n) => hosts.includes(n))).toBe(true);
    return names.join(separator);
  };

  it('sends Slack its text, escaping what Slack would read as a mention, a link or a fence', () => {
    const slack = only('/slack');
    const listed = listedIn(slack.text);
    const program = "Chan &lt;!channel&gt; @everyone &amp; co '[Verify your account](https://evil.example/login)'";
    expect(slack).toEqual({
      text: `30 new hosts on chan.test (hackerone, program ${program})\n\`\`\`\n${listed}\n\`\`\`\n… and 5 more\n${LINK}`,
      unfurl_links: false,
      unfurl_media: false,
    });
  });

  it('sends Discord its content, within 2,000 characters, with no masked link, and pings nobody', () => {
    const discord = only('/discord');
    const listed = listedIn(discord.content);
    const program =
      "Chan \\<!channel\\> @\u200beveryone & co '\\[Verify your account\\]\\(https://evil.example/login\\)'";
    expect(discord).toEqual({
      content: `30 new hosts on chan.test (hackerone, program ${program})\n\`\`\`\n${listed}\n\`\`\`\n… and 5 more\n${LINK}`,
      allowed_mentions: { parse: [] },
      flags: 4,
    });
  });

  it('sends Teams an Adaptive Card with a link back, its outside text where no Markdown is read', () => {
    const card = only('/teams');
    expect(card.type).toBe('message');
    expect(card.attachments).toHaveLength(1);
    const { contentType, content } = card.attachments[0];
    expect(contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    const runs = (content.body as { inlines?: { text: string }[] }[]).slice(1, -1).map((b) => b.inlines![0].text);
    expect(content.body).toEqual([
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: head, weight: 'Bolder' }] },
      ...listedIn(runs.join('\n'))
        .split('\n')
        .map((host, i) => ({
          type: 'RichTextBlock',
          inlines: [{ type: 'TextRun', text: host, fontType: 'Monospace' }],
          ...(i > 0 ? { spacing: 'None' } : {}),
        })),
      { type: 'TextBlock', text: '… and 5 more', isSubtle: true },
    ]);
    expect(content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in Subdomain Monitor', url: LINK }]);
  });

  it("sends Telegram's sendMessage to its chat, as plain text that mentions nobody", () => {
    expect(receiver.at('/bot123456:AAF-secret')).toHaveLength(0);
    const telegram = only('/bot123456:AAF-secret/sendMessage');
    const listed = listedIn(telegram.text);
    expect(telegram).toEqual({
      chat_id: '-1001234567890',
      text: `${head.replace('@', '@\u2060')}\n\n${listed}\n… and 5 more\n${LINK}`,
      link_preview_options: { is_disabled: true },
    });
  });

  it('mails every address through the SMTP server, from SMTP_FROM', () => {
    const [mail] = smtp.mails;
    const listed = listedIn(mail.text);
    expect(mail.from).toBe('monitor@example.com');
    expect(mail.to).toEqual(['alice@example.com', 'bob@example.com']);
    expect(mail.subject).toBe(head);
    expect(mail.text.trim()).toBe(`${head}\n\n${listed}\n… and 5 more\n${LINK}`);
  });

  it('shows a Telegram bot URL masked after creation, and takes a chat id for Telegram only', async () => {
    const listedHooks = (await t.get('/webhooks', owner)).body.data as { url: string; format: string }[];
    expect(listedHooks.find((w) => w.format === 'telegram')?.url).toBe(`${receiver.url}/…`);
    expect(listedHooks.find((w) => w.format === 'email')?.url).toBe('mailto:alice@example.com,bob@example.com');
    for (const [body, message] of [
      [{ url: `${receiver.url}/bot1:x`, format: 'telegram' }, /needs a chat id/],
      [{ url: `${receiver.url}/bot1:x`, format: 'telegram', chat_id: 'not a chat' }, /needs a chat id/],
      [{ url: `${receiver.url}/x`, format: 'slack', chat_id: '-100' }, /for telegram webhooks only/],
      [{ url: `${receiver.url}/x`, format: 'email' }, /mailto:/],
      [{ url: 'mailto:not-an-address', format: 'email' }, /1 to 10 addresses/],
      [{ url: 'mailto:a@example.com', format: 'json' }, /must be http or https/],
    ] as const) {
      const refused = await t.post('/webhooks', body, owner);
      expectError(refused, 400, 'invalid_body');
      expect(refused.body.error.message).toMatch(message);
    }
  });

  it('stores the addresses of a mailto: URL decoded once, and mails exactly those', async () => {
    const res = await t.post(
      '/webhooks',
      { url: 'mailto:Dana@Example.COM,%20erin@example.com', format: 'email' },
      owner,
    );
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe('mailto:Dana@example.com,erin@example.com');
    const [row] = await t.dataSource.query(`SELECT url FROM webhooks WHERE id = $1`, [res.body.data.id]);
    expect(row.url).toBe('mailto:Dana@example.com,erin@example.com');
    const sent = await t.post(`/webhooks/${res.body.data.id}/test`, undefined, owner);
    expect(sent.body.data).toMatchObject({ status: 'delivered', error: null });
    expect(smtp.mails.at(-1)?.to).toEqual(['Dana@example.com', 'erin@example.com']);
  });

  it('refuses, storing nothing, an address encoded twice that decoding again would turn into three', async () => {
    const before = await t.dataSource.query(`SELECT count(*)::int AS n FROM webhooks`);
    for (const [url, message] of [
      ['mailto:a%2540x.test%252cb%2540evil.test%252cc@example.com', /may not contain % once/],
      ['mailto:100%25@example.com', /may not contain % once/],
      ['mailto:a%zz@example.com', /malformed %-escape/],
    ] as const) {
      const refused = await t.post('/webhooks', { url, format: 'email' }, owner);
      expectError(refused, 400, 'invalid_body');
      expect(refused.body.error.message).toMatch(message);
    }
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM webhooks`)).toEqual(before);
  });

  it('sends a test mail, and records a mail the server refuses as failed', async () => {
    const { id } = (await t.post('/webhooks', { url: 'mailto:carol@example.com', format: 'email' }, owner)).body.data;
    const res = await t.post(`/webhooks/${id}/test`, undefined, owner);
    expect(res.body.data).toMatchObject({ kind: 'test', status: 'delivered', error: null });
    expect(smtp.mails.at(-1)).toMatchObject({ to: ['carol@example.com'], subject: expect.stringMatching(/test/) });

    const refused = (await t.post('/webhooks', { url: 'mailto:refused@example.com', format: 'email' }, owner)).body
      .data;
    const failed = await t.post(`/webhooks/${refused.id}/test`, undefined, owner);
    expect(failed.body.data).toMatchObject({ status: 'given_up', error: 'SMTP 550' });
  });
});
