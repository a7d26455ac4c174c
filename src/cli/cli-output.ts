import { Injectable } from '@nestjs/common';
import type { Command } from 'commander';
import { InjectCommander } from 'nest-commander';
import { escapeControlCharacters } from '../common/validation/control-characters.js';
import { AppError } from '../common/errors/app-error.js';

/** A failure the operator caused: printed as one line on stderr, exit code 1. */
export class CliError extends Error {}

/**
 * The CLI's one mapping of the service's errors: an AppError (a refusal a user is meant to read, whatever its code)
 * becomes that line; anything else stays unexpected (its stack is printed).
 */
export function asCliError(e: unknown): never {
  throw e instanceof AppError ? new CliError(e.message) : e;
}

/**
 * Where commands write: stdout for results, stderr for diagnostics. Everything goes through here escaped: names
 * come from users and from others' scope lists, and a control character in one must not reach the terminal raw.
 */
@Injectable()
export class CliOutput {
  line(text = ''): void {
    process.stdout.write(`${escapeControlCharacters(text)}\n`);
  }

  note(text: string): void {
    process.stderr.write(`${escapeControlCharacters(text)}\n`);
  }

  /** Columns padded to the widest cell, for lists an operator reads. */
  table(headers: string[], body: string[][]): void {
    const rows = body.map((r) => r.map(escapeControlCharacters));
    const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const format = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd();
    process.stdout.write(`${format(headers)}\n`);
    for (const row of rows) process.stdout.write(`${format(row)}\n`);
  }
}

export const iso = (d: Date | null) => (d ? d.toISOString() : '-');

/** The program's name in its help ("Usage: subdomain-monitor …"), not the built file's. */
@Injectable()
export class CliProgramName {
  constructor(@InjectCommander() commander: Command) {
    commander.name('subdomain-monitor');
  }
}
