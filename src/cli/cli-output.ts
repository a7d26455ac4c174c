import { Injectable } from '@nestjs/common';

/** A failure the operator caused: printed as one line on stderr, exit code 1. */
export class CliError extends Error {}

/** Where commands write: stdout for results, stderr for diagnostics. */
@Injectable()
export class CliOutput {
  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  }

  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  /** Columns padded to the widest cell, for lists an operator reads. */
  table(headers: string[], body: string[][]): void {
    const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
    const format = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd();
    this.line(format(headers));
    for (const row of body) this.line(format(row));
  }
}

export const iso = (d: Date | null) => (d ? d.toISOString() : '-');
