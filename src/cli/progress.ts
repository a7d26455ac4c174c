import cliProgress from 'cli-progress';
import { escapeControlCharacters } from '../common/validation/control-characters.js';

/**
 * Progress of a long CLI job on stderr: a bar on a terminal, and a plain line at most every few seconds
 * when stderr is a file or a pipe (CI logs, cron mail), so either way stdout keeps only the results.
 */
export class Progress {
  private readonly bar: cliProgress.SingleBar | null;
  private lastLine = 0;
  private value = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly intervalMs = 5000,
  ) {
    this.bar = stream.isTTY
      ? new cliProgress.SingleBar(
          {
            stream,
            format: `${label} [{bar}] {percentage}% | {value}/{total} | {step}`,
            hideCursor: true,
            clearOnComplete: false,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
    this.bar?.start(total, 0, { step: 'starting' });
  }

  update(value: number, rawStep: string): void {
    // A step may name the file or URL given (escaped, as everything the CLI prints)
    const step = escapeControlCharacters(rawStep);
    this.value = value;
    if (this.bar) {
      this.bar.update(value, { step });
      return;
    }
    const now = Date.now();
    if (now - this.lastLine >= this.intervalMs || value >= this.total) {
      this.lastLine = now;
      this.stream.write(
        `${this.label}: ${value}/${this.total} (${Math.round((100 * value) / Math.max(1, this.total))}%) ${step}\n`,
      );
    }
  }

  stop(): void {
    this.bar?.stop();
    if (!this.bar && this.value < this.total)
      this.stream.write(`${this.label}: stopped at ${this.value}/${this.total}\n`);
  }
}
