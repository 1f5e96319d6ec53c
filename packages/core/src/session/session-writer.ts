import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { StorageError } from '../errors.js';
import path from 'node:path';
import type { AgentMessage } from '../agent/types.js';
import { lockSession } from './session-lock.js';
import type { SessionHeader, SessionMetaInput } from './types.js';
import { terminalSafeJson } from '../terminal-text.js';

/**
 * Appends records to one session file. Every `append` is a synchronous write of one whole line, so
 * when it returns the line is in the kernel: `kill -9` right after loses nothing. (Only a power cut
 * could; `close` fsyncs, but fsync per message would make every message wait on the disk.)
 */
export class SessionWriter {
  private fd: number | undefined;
  private pendingHeader: string | undefined;
  private closed = false;
  private unlock: (() => void) | undefined;

  /** @internal Use SessionStore.create or SessionStore.open. */
  constructor(
    readonly id: string,
    readonly path: string,
    options: { header?: SessionHeader; fd?: number; unlock?: () => void },
  ) {
    this.fd = options.fd;
    // One writer per session file: two processes appending would interleave its lines.
    if (options.fd !== undefined) this.unlock = options.unlock;
    // A new session's file appears with its first record, so sessions quit before anything
    // happened do not clutter `sessions list` or become the one `--continue` picks.
    if (options.header) this.pendingHeader = `${terminalSafeJson(JSON.stringify(options.header))}\n`;
  }

  append(message: AgentMessage): void {
    // `role` first on purpose: listing sessions recognises message kinds by this fixed prefix
    // without parsing the JSON.
    const { role, ...rest } = message;
    this.write(JSON.stringify({ type: 'message', message: { role, ...rest } }));
  }

  /** Records a message of the subagent that the task call `toolCallId` runs (kept apart from the conversation). */
  appendSubagent(toolCallId: string, agent: string, message: AgentMessage): void {
    this.write(JSON.stringify({ type: 'subagent', toolCallId, agent, message }));
  }

  /** Records a model switch or an SOP change. */
  appendMeta(meta: SessionMetaInput): void {
    const { kind, ...rest } = meta; // `kind` first, for the same reason as `role` above
    this.write(JSON.stringify({ type: 'meta', kind, ...rest, timestamp: Date.now() }));
  }

  /** True once the file exists (after the first record of a new session). */
  get started(): boolean {
    return this.fd !== undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
      this.unlock?.();
    }
  }

  private write(line: string): void {
    if (this.closed) throw new Error(`The session ${this.id} is closed; open it again to append.`);
    // The same JSON with C1 controls escaped: `cat` on a session file cannot drive the terminal.
    let text = `${terminalSafeJson(line)}\n`;
    if (this.fd === undefined) {
      mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      this.unlock = lockSession(this.path, this.id);
      // Sessions hold code and command output: keep them private to the user.
      this.fd = openSync(this.path, 'a', 0o600);
    }
    if (this.pendingHeader) text = this.pendingHeader + text;
    const before = fstatSync(this.fd).size;
    try {
      writeFully(this.fd, Buffer.from(text, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EFBIG') throw error;
      // Keep the file whole: no half line is left for the next load to stumble on.
      ftruncateSync(this.fd, before);
      throw new StorageError(
        `The disk is full, so the session could not be saved to ${this.path} (${code}). Free some space, then pick up where it stopped with \`beans --continue\`.`,
      );
    }
    this.pendingHeader = undefined;
  }
}

function writeFully(fd: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}
