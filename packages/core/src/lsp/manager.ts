import { readFile } from '../async-fs.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { commandLineOf, type LspServerDeclaration } from './declarations.js';
import type { RunningServer, SentDocument } from './server.js';

// The session's language servers: which declaration serves a file (by extension), one process per
// declaration and workspace folder, started on the first file of its language, restarted with
// backoff after a crash, stopped when the session closes. Loads vscode-jsonrpc only to start one.

export type LspServerState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

export interface LspServerStatus {
  name: string;
  origin: string;
  command: string;
  languages: string[];
  extensions: string[];
  state: LspServerState;
  pid?: number;
  restarts: number;
  /** Why it is not running (failed), in one line. */
  problem?: string;
}

export interface LspManagerOptions {
  servers: readonly LspServerDeclaration[];
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  /** One line for the user (a server not installed, one that keeps crashing); each is said once. */
  warn: (message: string) => void;
  /** First delay before a crashed server starts again; doubles each time. */
  restartBackoffMs?: number;
}

/** A document as a server sees it: the server, its uri and language. */
export interface ServedFile {
  server: RunningServer;
  uri: string;
  languageId: string;
}

interface Slot {
  declaration: LspServerDeclaration;
  root: string;
  state: LspServerState;
  server?: RunningServer;
  starting?: Promise<RunningServer | undefined>;
  restarts: number;
  problem?: string;
  restartTimer?: NodeJS.Timeout;
  /** Documents that were open, reopened from disk after a restart. */
  open: Set<string>;
}

export class LspManager {
  private readonly slots: Slot[];
  private readonly byExtension = new Map<string, Slot>();
  private readonly said = new Set<string>();
  /** The text each open document was last sent with, to see what a command changed on disk. */
  private readonly texts = new Map<string, string>();
  private closed = false;

  constructor(private readonly options: LspManagerOptions) {
    this.slots = options.servers.map((declaration) => ({
      declaration,
      root: declaration.workspaceFolder ? path.resolve(options.workspaceRoot, declaration.workspaceFolder) : options.workspaceRoot,
      state: 'idle',
      restarts: 0,
      open: new Set(),
    }));
    // The first declaration of an extension serves it (a later source replaced same-named servers already).
    for (const slot of this.slots)
      for (const extension of Object.keys(slot.declaration.extensionToLanguage)) if (!this.byExtension.has(extension)) this.byExtension.set(extension, slot);
  }

  /** True when some server is declared for the file's extension. */
  handles(file: string): boolean {
    return this.slotOf(file) !== undefined;
  }

  list(): LspServerStatus[] {
    return this.slots.map((slot) => ({
      name: slot.declaration.name,
      origin: slot.declaration.origin,
      command: commandLineOf(slot.declaration),
      languages: [...new Set(Object.values(slot.declaration.extensionToLanguage))],
      extensions: Object.keys(slot.declaration.extensionToLanguage),
      state: slot.state,
      ...(slot.server?.alive && slot.server.process.pid ? { pid: slot.server.process.pid } : {}),
      restarts: slot.restarts,
      ...(slot.problem ? { problem: slot.problem } : {}),
    }));
  }

  /** Starts the file's server if it is not running yet (does not wait). */
  warmUp(file: string): void {
    const slot = this.slotOf(file);
    if (slot) void this.ready(slot);
  }

  /**
   * The running server for a file, started if needed (within its startupTimeout); undefined when no
   * server handles the file or it cannot run. Never throws.
   */
  async serverFor(file: string): Promise<ServedFile | undefined> {
    const slot = this.slotOf(file);
    if (!slot) return undefined;
    const server = await this.ready(slot);
    if (!server) return undefined;
    return { server, uri: pathToFileURL(file).href, languageId: slot.declaration.extensionToLanguage[extensionOf(file)] };
  }

  /**
   * Sends the file's current text (open, or a full change) and returns what was sent, to wait for
   * the answer to. `text` defaults to the file on disk.
   */
  async sync(file: string, text?: string): Promise<{ served: ServedFile; sent: SentDocument } | undefined> {
    const served = await this.serverFor(file);
    if (!served) return undefined;
    const content = text ?? (await readFile(file, 'utf8').catch(() => undefined));
    if (content === undefined) return undefined;
    this.slotOf(file)!.open.add(file);
    this.texts.set(file, content);
    return { served, sent: await served.server.sync(served.uri, served.languageId, content) };
  }

  /** Open documents of running servers whose file on disk is no longer the text last sent. */
  async changedOnDisk(maxBytes: number): Promise<string[]> {
    const files = this.slots.filter((slot) => slot.server?.alive).flatMap((slot) => [...slot.open]);
    const changed = await Promise.all(
      files.map(async (file) => {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        return text !== undefined && text.length <= maxBytes && text !== this.texts.get(file) ? file : undefined;
      }),
    );
    return changed.filter((file): file is string => file !== undefined);
  }

  /** The diagnostics a server last published for the file, if it has published any. */
  lastDiagnostics(served: ServedFile): Diagnostic[] | undefined {
    return served.server.diagnosticsOf(served.uri);
  }

  /** Stops every server (shutdown, exit, then the process group), in parallel. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.restartTimer);
        const server = slot.server ?? (await slot.starting?.catch(() => undefined));
        slot.state = 'stopped';
        await server?.stop();
      }),
    );
  }

  private slotOf(file: string): Slot | undefined {
    return this.byExtension.get(extensionOf(file));
  }

  private ready(slot: Slot): Promise<RunningServer | undefined> {
    if (slot.server?.alive) return Promise.resolve(slot.server);
    if (slot.state === 'failed' || slot.state === 'stopped' || this.closed) return Promise.resolve(undefined);
    slot.starting ??= this.start(slot).finally(() => {
      slot.starting = undefined;
    });
    return slot.starting;
  }

  private async start(slot: Slot): Promise<RunningServer | undefined> {
    slot.state = slot.state === 'restarting' ? 'restarting' : 'starting';
    try {
      const { RunningServer } = await import('./server.js');
      const server = await RunningServer.start({
        declaration: slot.declaration,
        root: slot.root,
        env: this.options.env,
        onExit: (detail) => this.crashed(slot, detail),
      });
      if (this.closed) {
        await server.stop();
        return undefined;
      }
      slot.server = server;
      slot.state = 'running';
      slot.problem = undefined;
      // After a restart the server knows nothing: the documents it had open are opened again from disk.
      for (const file of slot.open) {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        const languageId = slot.declaration.extensionToLanguage[extensionOf(file)];
        if (text !== undefined && languageId) {
          this.texts.set(file, text);
          await server.sync(pathToFileURL(file).href, languageId, text);
        }
      }
      return server;
    } catch (error) {
      slot.state = 'failed';
      slot.problem = error instanceof Error ? error.message : String(error);
      this.sayOnce(slot.problem);
      return undefined;
    }
  }

  private crashed(slot: Slot, detail: string): void {
    slot.server = undefined;
    if (this.closed) return;
    const { declaration } = slot;
    if (!declaration.restartOnCrash || slot.restarts >= declaration.maxRestarts) {
      slot.state = 'failed';
      slot.problem = `LSP server "${declaration.name}" (${declaration.origin}) ${detail}; not restarted${declaration.restartOnCrash ? ` after ${slot.restarts} restart(s)` : ''}`;
      this.sayOnce(slot.problem);
      return;
    }
    const delay = (this.options.restartBackoffMs ?? 500) * 2 ** slot.restarts;
    slot.restarts++;
    slot.state = 'restarting';
    slot.problem = `${detail}; restarting in ${delay} ms`;
    slot.restartTimer = setTimeout(() => void this.ready(slot), delay);
    slot.restartTimer.unref();
  }

  private sayOnce(message: string): void {
    if (this.said.has(message)) return;
    this.said.add(message);
    this.options.warn(message);
  }
}

function extensionOf(file: string): string {
  return path.extname(file).toLowerCase();
}
