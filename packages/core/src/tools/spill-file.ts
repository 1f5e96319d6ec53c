import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Output up to this size is not written anywhere: the memory buffers hold all of it. */
const IN_MEMORY_BYTES = 32 * 1024;

/**
 * A background task's whole output on disk, written synchronously as each chunk arrives. While a
 * chunk is written the pipe is not read, so a task printing faster than the disk takes it is slowed
 * down by the kernel's pipe, and nothing piles up in memory (an asynchronous write stream queued
 * hundreds of megabytes of native memory under a 200 MB flood). A write failure (a full disk) stops
 * the file, never the task.
 */
export class SpillFile {
  private fd: number | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(private readonly file: string | undefined) {}

  /** The file, once the output outgrew memory and is being written; undefined before. */
  get path(): string | undefined {
    return this.fd !== undefined || this.failed ? this.file : undefined;
  }

  write(chunk: Buffer): void {
    if (!this.file || this.failed) return;
    try {
      if (this.fd === undefined) {
        this.pending.push(chunk);
        this.pendingBytes += chunk.length;
        if (this.pendingBytes <= IN_MEMORY_BYTES) return;
        mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
        this.fd = openSync(this.file, 'w', 0o600);
        for (const held of this.pending.splice(0)) writeAll(this.fd, held);
        return;
      }
      writeAll(this.fd, chunk);
    } catch {
      this.failed = true;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already gone
    }
    this.fd = undefined;
    this.failed = true; // keeps `path` answering for a closed file
  }
}

function writeAll(fd: number, chunk: Buffer): void {
  for (let written = 0; written < chunk.length;) written += writeSync(fd, chunk, written);
}
