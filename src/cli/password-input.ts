import { createInterface } from 'node:readline';
import { CliError } from './cli-output.js';

/** The first line of standard input: `echo "$PASSWORD" | … users create …`, or a file redirected in. */
async function firstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

/** Asks on the terminal without echoing what is typed. */
function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const output = rl as unknown as { _writeToOutput(s: string): void };
  output._writeToOutput = (s: string) => {
    if (s.startsWith(question) || s.includes('\n')) process.stderr.write(s.startsWith(question) ? question : '\n');
  };
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      resolve(answer);
    }),
  );
}

/**
 * A new secret (a password, a webhook's signing secret): typed twice on a terminal, else the first line of
 * standard input. Never an argument, which would show in the process list and the shell's history.
 */
export async function readNewSecret(what: 'password' | 'secret'): Promise<string> {
  if (!process.stdin.isTTY) {
    const secret = await firstLine();
    if (!secret) throw new CliError(`give the ${what} on standard input (its first line)`);
    return secret;
  }
  const secret = await ask(`${what[0].toUpperCase()}${what.slice(1)}: `);
  if ((await ask('Repeat it: ')) !== secret) throw new CliError(`the two ${what}s differ`);
  return secret;
}

export const readNewPassword = (): Promise<string> => readNewSecret('password');
