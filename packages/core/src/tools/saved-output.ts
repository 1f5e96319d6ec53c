import { createWriteStream, mkdirSync, realpathSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { OutsideWorkspaceError, isInside, resolveInWorkspace, type WorkspacePath } from '../workspace/paths.js';
import type { ToolContext } from './tool.js';

/** Saves a whole output that is about to be cut; returns its path, or undefined without a folder. */
export function saveWholeOutput(outputDir: string | undefined, name: string, text: string): string | undefined {
  if (!outputDir) return undefined;
  try {
    mkdirSync(outputDir, { recursive: true, mode: 0o700 });
    const file = path.join(outputDir, `${name.replace(/[^\w.-]/g, '_')}.txt`);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  } catch {
    return undefined; // a full disk must not fail the call: the model still gets the cut output
  }
}

/** What the model is told about a cut output and where the rest is. */
export function wholeOutputNote(file: string, what: string): string {
  return `[${what} The whole output is saved in ${file}: read more of it with read_file (path and offset) or search it with grep (path).]`;
}

/** Output up to this size stays in memory: it is never cut, so no file is needed for it. */
const IN_MEMORY_BYTES = 32 * 1024;

/** Streams a command's output to a file as it comes, kept only if the output turns out to be cut. */
export class OutputTee {
  private stream: WriteStream | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly file: string | undefined) {}

  write(chunk: Buffer): void {
    if (!this.file) return;
    if (!this.stream) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes <= IN_MEMORY_BYTES) return;
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      this.stream = createWriteStream(this.file, { mode: 0o600 });
      this.stream.on('error', () => undefined);
      for (const held of this.pending.splice(0)) this.stream.write(held);
      return;
    }
    this.stream.write(chunk);
  }

  /** The output so far while it is still only in memory (no file yet), else undefined. */
  held(): Buffer[] | undefined {
    return this.stream ? undefined : [...this.pending];
  }

  /** Closes the file; keeps it (returning its path) or removes it. */
  async finish(keep: boolean): Promise<string | undefined> {
    const stream = this.stream;
    if (!stream || !this.file) return undefined;
    await new Promise<void>((resolve) => stream.end(resolve));
    if (keep) return this.file;
    rmSync(this.file, { force: true });
    return undefined;
  }
}

/** A path the read tools accept: inside the workspace, or a saved output of this session. */
export function resolveReadable(ctx: Pick<ToolContext, 'workspace' | 'outputDir'>, raw: string): WorkspacePath {
  try {
    return resolveInWorkspace(ctx.workspace, raw);
  } catch (error) {
    if (!(error instanceof OutsideWorkspaceError) || !ctx.outputDir || !path.isAbsolute(raw)) throw error;
    try {
      const real = realpathSync(raw);
      if (isInside(realpathSync(ctx.outputDir), real)) return { absolute: real, relative: real };
    } catch {
      // not there: the original error says what is allowed
    }
    throw error;
  }
}
