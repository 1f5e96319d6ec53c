import { StringDecoder } from 'node:string_decoder';
import { cutLine, lastCarriageSegment, stripAnsi } from './text.js';

export interface HeadTailLimits {
  headChars: number;
  tailChars: number;
  lineChars: number;
}

const DEFAULT_OUTPUT_LIMITS: HeadTailLimits = { headChars: 8_000, tailChars: 22_000, lineChars: 2_000 };

/**
 * Keeps the first and the last lines of a stream in bounded memory (the start of a build log says
 * what ran, the end says what failed) and counts the lines dropped between them.
 */
export class HeadTailBuffer {
  private readonly decoder = new StringDecoder('utf8');
  private readonly head: string[] = [];
  private headChars = 0;
  private headFull = false;
  private tail: string[] = [];
  private tailFirst = 0;
  private tailChars = 0;
  private partial = '';
  private partialOverflow = 0;
  private droppedLines = 0;
  totalLines = 0;

  constructor(private readonly limits: HeadTailLimits = DEFAULT_OUTPUT_LIMITS) {}

  /** Adds raw bytes; returns the lines completed by them (cleaned, for streaming to the UI). */
  write(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const completed: string[] = [];
    let pos = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', pos)) {
      this.appendPartial(text.slice(pos, nl));
      completed.push(this.completeLine());
      pos = nl + 1;
    }
    this.appendPartial(text.slice(pos));
    return completed;
  }

  /** Adds a line already cleaned by another buffer (no decoding, no second clean-up). */
  pushLine(line: string): void {
    this.totalLines++;
    this.store(line);
  }

  /** Flushes the last unterminated line, if any. */
  end(): string[] {
    this.appendPartial(this.decoder.end());
    return this.partial || this.partialOverflow ? [this.completeLine()] : [];
  }

  get linesCut(): number {
    return this.droppedLines;
  }

  render(): string {
    const tail = this.tail.slice(this.tailFirst);
    if (this.droppedLines === 0) return [...this.head, ...tail].join('\n');
    return `${this.head.join('\n')}\n… [${this.droppedLines.toLocaleString('en-US')} lines cut] …\n${tail.join('\n')}`;
  }

  private appendPartial(text: string): void {
    if (!text) return;
    // Only a bounded prefix of a giant line is kept; the rest is counted.
    const room = this.limits.lineChars * 2 - this.partial.length;
    if (room >= text.length) this.partial += text;
    else {
      this.partial += text.slice(0, Math.max(0, room));
      this.partialOverflow += text.length - Math.max(0, room);
    }
  }

  private completeLine(): string {
    let line = stripAnsi(lastCarriageSegment(this.partial));
    if (this.partialOverflow > 0)
      line = `${line.slice(0, this.limits.lineChars)}… [${(line.length - this.limits.lineChars + this.partialOverflow).toLocaleString('en-US')} more characters]`;
    else line = cutLine(line, this.limits.lineChars);
    this.partial = '';
    this.partialOverflow = 0;
    this.totalLines++;
    this.store(line);
    return line;
  }

  private store(line: string): void {
    const size = line.length + 1;
    if (!this.headFull && this.headChars + size <= this.limits.headChars) {
      this.head.push(line);
      this.headChars += size;
      return;
    }
    this.headFull = true;
    this.tail.push(line);
    this.tailChars += size;
    while (this.tailChars > this.limits.tailChars && this.tail.length - this.tailFirst > 1) {
      this.tailChars -= this.tail[this.tailFirst].length + 1;
      this.tailFirst++;
      this.droppedLines++;
    }
    // Compact now and then so the dropped prefix does not grow without bound.
    if (this.tailFirst > 4096 && this.tailFirst * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailFirst);
      this.tailFirst = 0;
    }
  }
}
