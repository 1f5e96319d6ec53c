/**
 * The ACP SDK reads at most 32 MiB per message (its DEFAULT_MAX_MESSAGE_BYTES) and ends the whole
 * connection on a longer line, so one huge line from the editor (or anything writing to Beans'
 * stdin) ended `beans acp` silently with exit 0. The guard passes on only whole lines of at most that
 * size, buffering each until its newline, and drops a longer one as it arrives: never more than the
 * limit is held, and the editor gets an error answer for it instead of a dead agent.
 */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** How much of a dropped line is kept to find its request id. */
const HEAD_BYTES = 4096;

interface LineRefusal {
  /** The request's id when its first bytes name one (`{"jsonrpc":"2.0","id":7,...`), else null. */
  id: number | string | null;
  message: string;
}

export interface LineGuardSinks {
  /** A whole line with its newline (the last one, at the end of input, may have none). */
  line(bytes: Uint8Array): void;
  tooLong(refusal: LineRefusal): void;
}

export class LineGuard {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** While a line over the limit is being skipped: its first bytes and its size so far. */
  private dropping: { head: Buffer; bytes: number } | undefined;

  constructor(
    private readonly sinks: LineGuardSinks,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.dropping) {
        this.dropping.bytes += piece.length;
        if (newline !== -1) this.finishDrop();
        continue;
      }
      // The newline does not count against the limit, as in the SDK.
      if (this.pendingBytes + piece.length - (newline === -1 ? 0 : 1) > this.maxBytes) {
        const head = Buffer.concat([...this.pending, piece]).subarray(0, HEAD_BYTES);
        this.dropping = { head: Buffer.from(head), bytes: this.pendingBytes + piece.length };
        this.pending = [];
        this.pendingBytes = 0;
        if (newline !== -1) this.finishDrop();
        continue;
      }
      if (newline === -1) {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
        continue;
      }
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      this.sinks.line(line);
    }
  }

  /** The end of input: a last line without a newline is passed on (or refused) too. */
  end(): void {
    if (this.dropping) return this.finishDrop();
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.sinks.line(line);
  }

  private finishDrop(): void {
    const { head, bytes } = this.dropping!;
    this.dropping = undefined;
    const id = requestId(head.toString('utf8'));
    this.sinks.tooLong({
      id,
      message: `An ACP message of ${megabytes(bytes)}${id === null ? '' : ` (request ${JSON.stringify(id)})`} is larger than the ${megabytes(this.maxBytes)} Beans reads; it was dropped. Send large content as a resource link, or in smaller messages.`,
    });
  }
}

/** The id of a JSON-RPC request from its first bytes, when `id` is its first or second key. */
function requestId(head: string): number | string | null {
  const match = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\\n]|\\.){0,200}")\s*[,}]/.exec(head);
  if (!match) return null;
  try {
    return JSON.parse(match[1]) as number | string;
  } catch {
    return null;
  }
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
