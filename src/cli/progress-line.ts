import { styleText } from 'node:util';

const REDRAW_MS = 250;

/**
 * A status line at the bottom of a terminal, redrawn in place with the time elapsed; lines printed meanwhile
 * go above it. Where the output is no terminal (a pipe, a file) it draws nothing and lines print as they are.
 */
export class ProgressLine {
  readonly #stream: NodeJS.WriteStream;
  readonly #startedAt = Date.now();
  readonly #timer: NodeJS.Timeout | undefined;
  #text = '';

  constructor(stream: NodeJS.WriteStream = process.stdout) {
    this.#stream = stream;
    if (stream.isTTY) this.#timer = setInterval(() => { this.#draw(); }, REDRAW_MS).unref();
  }

  /** Replaces what the line says (the elapsed time is added to it). */
  set(text: string): void {
    this.#text = text;
    this.#draw();
  }

  /** Prints a line above the status line. */
  print(line: string): void {
    this.#clear();
    this.#stream.write(`${line}\n`);
    this.#draw();
  }

  /** Removes the status line for good. */
  stop(): void {
    clearInterval(this.#timer);
    this.#clear();
    this.#text = '';
  }

  #draw(): void {
    if (!this.#stream.isTTY || this.#text === '') return;
    const elapsed = `${((Date.now() - this.#startedAt) / 1000).toFixed(0)} s`;
    // A terminal that reports no size (some pseudo-terminals) gets a conventional 80 columns.
    const columns = this.#stream.columns > 0 ? this.#stream.columns : 80;
    const line = `${this.#text} · ${elapsed}`.slice(0, columns - 1);
    this.#stream.write(`\r\x1b[2K${styleText('cyan', line, { stream: this.#stream })}`);
  }

  #clear(): void {
    if (this.#stream.isTTY && this.#text !== '') this.#stream.write('\r\x1b[2K');
  }
}
