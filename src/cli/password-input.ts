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
 * A new password: typed twice on a terminal, else the first line of standard input. Never an argument, which
 * would show in the process list and the shell's history.
 */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const password = await firstLine();
    if (!password) throw new CliError('give the password on standard input (its first line)');
    return password;
  }
  const password = await ask('Password: ');
  if ((await ask('Repeat it: ')) !== password) throw new CliError('the two passwords differ');
  return password;
}
