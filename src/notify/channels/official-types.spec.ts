import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type ts from 'typescript';
import { bodies } from '../../../test/fixtures/webhook-batches.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Each channel's captured bodies (a burst, a single host, hostile hosts and changes, a digest, a test) assigned to
 * the service's own type package, one file a channel, compiled with `strict`: a field the service does not know,
 * or one of the wrong type, is a diagnostic. The files sit in a temporary folder whose node_modules is the
 * project's, so the packages resolve as they would in a project of their users.
 */
const FILES = {
  'slack.ts': (captured: string) => `
    import type { IncomingWebhookSendArguments } from '@slack/webhook';
    export const bodies: Record<string, IncomingWebhookSendArguments> = ${captured};`,
  'discord.ts': (captured: string) => `
    import type { RESTPostAPIWebhookWithTokenJSONBody } from 'discord-api-types/v10';
    export const bodies: Record<string, RESTPostAPIWebhookWithTokenJSONBody> = ${captured};`,
  'telegram.ts': (captured: string) => `
    import type { ApiMethods } from '@grammyjs/types';
    type SendMessage = Parameters<ApiMethods<never>['sendMessage']>[0];
    export const bodies: Record<string, SendMessage> = ${captured};`,
};

/**
 * The compiler run itself: in a worker thread, given the typescript module, so the jest worker never holds the
 * compiler's heap (a large heap left behind makes jest's worker slow to stop). Plain code: it is sent as its text.
 */
function compile(compiler: typeof ts, names: string[], dir: string): string[] {
  const program = compiler.createProgram(names, {
    strict: true,
    noEmit: true,
    module: compiler.ModuleKind.NodeNext,
    moduleResolution: compiler.ModuleResolutionKind.NodeNext,
    target: compiler.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    types: [],
    // The packages' own declarations are theirs to check; the captured bodies are ours.
    skipLibCheck: true,
  });
  const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
  return compiler.getPreEmitDiagnostics(program).map((d) => compiler.formatDiagnostic(d, host).trim());
}

async function typeErrors(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'payload-types-'));
  try {
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const names = Object.entries(files).map(([name, source]) => {
      writeFileSync(path.join(dir, name), source);
      return path.join(dir, name);
    });
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       parentPort.postMessage((${compile.toString()})(require('typescript'), workerData.names, workerData.dir));`,
      { eval: true, workerData: { names, dir } },
    );
    const [errors] = (await once(worker, 'message')) as [string[]];
    // The thread's heap is freed as it ends: wait for that, not for the jest worker's own exit.
    await once(worker, 'exit');
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("chat payloads against the services' type packages", () => {
  // One compiler run for every file: a file's diagnostics begin with its name.
  let errors: string[];
  beforeAll(async () => {
    errors = await typeErrors({
      'slack.ts': FILES['slack.ts'](JSON.stringify(bodies('slack'), null, 2)),
      'discord.ts': FILES['discord.ts'](JSON.stringify(bodies('discord'), null, 2)),
      'telegram.ts': FILES['telegram.ts'](JSON.stringify(bodies('telegram'), null, 2)),
      // What Telegram was sent before Bot API 7.0, to show that a body which drifts from its type is caught.
      'drifted.ts': FILES['telegram.ts'](
        JSON.stringify({ old: { chat_id: '1', text: 'x', disable_web_page_preview: true } }),
      ),
    });
  });
  const of = (file: string) => errors.filter((e) => e.startsWith(file));

  it.each([
    ['slack.ts', '@slack/webhook'],
    ['discord.ts', 'discord-api-types/v10'],
    ['telegram.ts', '@grammyjs/types'],
  ])('%s compiles against %s under tsc --strict', (file) => {
    expect(of(file)).toEqual([]);
  });

  it('catches a body that drifts from the type', () => {
    expect(of('drifted.ts')).toEqual([expect.stringMatching(/disable_web_page_preview.*does not exist in type/s)]);
  });
});

/**
 * The adaptivecards package's own reader. Its main entry is ES modules without file extensions, which Node cannot
 * load; the UMD bundle beside it needs no DOM to parse and validate a card (only to render one).
 */
const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** What the SDK reports of a card: parse events (unknown element types, invalid values) and validation failures. */
function cardProblems(card: unknown): string[] {
  const parsed = new AC.AdaptiveCard();
  const context = new AC.SerializationContext(AC.Versions.v1_4);
  parsed.parse(card, context);
  const problems: string[] = [];
  for (let i = 0; i < context.eventCount; i++) problems.push(context.getEventAt(i).message);
  for (const failure of parsed.validateProperties().validationEvents) problems.push(failure.message);
  return problems;
}

type TeamsMessage = { type: string; attachments: { contentType: string; content: object }[] };

describe('teams payloads against the adaptivecards SDK', () => {
  const messages = Object.entries(bodies('teams') as Record<string, TeamsMessage>);
  const cards = messages.map(([name, message]) => [name, message.attachments[0].content] as const);

  it('sends each card as the one attachment of a message, as a Workflows webhook takes it', () => {
    for (const [, message] of messages) {
      expect(message.type).toBe('message');
      expect(message.attachments.map((a) => a.contentType)).toEqual(['application/vnd.microsoft.card.adaptive']);
    }
  });

  it.each(cards)('parses the %s card as version 1.4 with no event and no validation failure', (_, card) => {
    expect(cardProblems(card)).toEqual([]);
    // What the SDK reads of the card is the whole card: no property it does not know, none of the wrong kind.
    const parsed = new AC.AdaptiveCard();
    parsed.parse(card, new AC.SerializationContext(AC.Versions.v1_4));
    expect(parsed.toJSON()).toEqual(card);
  });

  it('reports an element and a value it does not know', () => {
    const bad = {
      type: 'AdaptiveCard',
      version: '1.4',
      body: [{ type: 'Nope' }, { type: 'TextBlock', text: 'x', weight: 'Heavy' }],
    };
    expect(cardProblems(bad)).toEqual([
      expect.stringMatching(/Unknown element type "Nope"/),
      expect.stringMatching(/Invalid value "Heavy"/),
    ]);
  });
});
