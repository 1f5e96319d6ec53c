import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, InitializeParams, InitializeResult, PublishDiagnosticsParams, ServerCapabilities } from 'vscode-languageserver-protocol';
import { killProcessGroup, newRunTag, RUN_TAG_VARIABLE, trackProcessGroup, untrackProcessGroup } from '../tools/process-tree.js';
import { commandLineOf, type LspServerDeclaration } from './declarations.js';

// One running language server process and its JSON-RPC connection. This file is the only one that
// loads vscode-jsonrpc; lsp/manager.ts imports it when the first server is needed.

export interface ServerStartOptions {
  declaration: LspServerDeclaration;
  /** The workspace folder the server serves. */
  root: string;
  /** The environment without Beans' keys (runtime/base.ts programEnvironment); the declaration's env goes over it. */
  env: NodeJS.ProcessEnv;
  /** Called when the process ends without being asked to (a crash, a kill from outside). */
  onExit: (detail: string) => void;
}

/** A diagnostics publication kept per document: what the server said last, and a counter to wait on. */
interface Published {
  diagnostics: Diagnostic[];
  seq: number;
}

export class RunningServer {
  readonly declaration: LspServerDeclaration;
  readonly root: string;
  readonly process: ChildProcess;
  capabilities: ServerCapabilities = {};
  private readonly connection: MessageConnection;
  private readonly published = new Map<string, Published>();
  private readonly listeners = new Set<(uri: string) => void>();
  private readonly versions = new Map<string, number>();
  private seq = 0;
  /** False until the server's first publication: before it, the server is still loading its project. */
  hasPublished = false;
  /** When each document was last sent and not yet answered, to learn how fast the server answers. */
  private readonly sentAt = new Map<string, number>();
  /** A running average of the time from a change to the document's next publication (ms); undefined before the first. */
  answerMs: number | undefined;
  /** Work-done progress the server reported begun and not ended (tsserver: "Initializing JS/TS language features"). */
  private readonly busy = new Set<string | number>();
  private stopping = false;
  private exited = false;
  private readonly exitedPromise: Promise<void>;
  stderrTail = '';

  private constructor(options: ServerStartOptions, child: ChildProcess) {
    this.declaration = options.declaration;
    this.root = options.root;
    this.process = child;
    this.connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.exitedPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exited = true;
        if (child.pid) untrackProcessGroup(child.pid);
        this.connection.dispose();
        if (!this.stopping) options.onExit(signal ? `killed by ${signal}` : `exited with code ${code}`);
        resolve();
      });
    });
    // A server writing its log to stderr must not fill the pipe; the last lines help a failure message.
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2_000);
    });
    child.stdin!.on('error', () => undefined);
    this.listen();
  }

  /**
   * Starts the process and completes `initialize` within the declaration's startupTimeout. Throws
   * a one-line error (not installed, no answer, exited) and leaves nothing running when it fails.
   */
  static async start(options: ServerStartOptions): Promise<RunningServer> {
    const { declaration } = options;
    const child = spawn(declaration.command, declaration.args, {
      cwd: options.root,
      // Its own process group, stopped with everything it starts (tsserver, typings installer); the
      // run tag lets Beans' exit sweep find them even if they leave the group.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...options.env, ...declaration.env, [RUN_TAG_VARIABLE]: newRunTag() },
    });
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (error) => resolve(error));
    });
    if (spawned) {
      const notFound = (spawned as NodeJS.ErrnoException).code === 'ENOENT';
      throw new Error(notFound ? `LSP server "${declaration.name}" (${declaration.origin}) is not installed: \`${declaration.command}\` was not found on PATH` : `LSP server "${declaration.name}" (${declaration.origin}) could not start \`${commandLineOf(declaration)}\`: ${spawned.message}`);
    }
    trackProcessGroup(child.pid!);
    const server = new RunningServer(options, child);
    try {
      await server.initialize();
      return server;
    } catch (error) {
      await server.stop(0);
      throw error;
    }
  }

  private listen(): void {
    const settings = this.declaration.settings;
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      // A publication for an older version of a document we changed since is already stale.
      const version = this.versions.get(params.uri);
      if (typeof params.version === 'number' && version !== undefined && params.version < version) return;
      this.hasPublished = true;
      const sent = this.sentAt.get(params.uri);
      if (sent !== undefined) {
        this.sentAt.delete(params.uri);
        const took = Date.now() - sent;
        this.answerMs = this.answerMs === undefined ? took : Math.round(this.answerMs * 0.7 + took * 0.3);
      }
      this.published.set(params.uri, { diagnostics: params.diagnostics, seq: ++this.seq });
      for (const listener of this.listeners) listener(params.uri);
    });
    this.connection.onNotification('$/progress', (params: { token: string | number; value?: { kind?: string } }) => {
      if (params.value?.kind === 'begin') this.busy.add(params.token);
      else if (params.value?.kind === 'end') this.busy.delete(params.token);
      for (const listener of this.listeners) listener('');
    });
    this.connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => params.items.map((item) => sectionOf(settings, item.section)));
    this.connection.onRequest('workspace/workspaceFolders', () => [{ uri: pathToFileURL(this.root).href, name: this.declaration.name }]);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('client/unregisterCapability', () => null);
    this.connection.onRequest('window/showMessageRequest', () => null);
    this.connection.onRequest('workspace/applyEdit', () => ({ applied: false, failureReason: 'Beans applies no edits from language servers' }));
    this.connection.onError(() => undefined);
    this.connection.listen();
  }

  private async initialize(): Promise<void> {
    const { declaration } = this;
    const rootUri = pathToFileURL(this.root).href;
    const params: InitializeParams = {
      processId: process.pid,
      clientInfo: { name: 'beans' },
      rootUri,
      rootPath: this.root,
      workspaceFolders: [{ uri: rootUri, name: declaration.name }],
      initializationOptions: declaration.initializationOptions,
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: false }, symbol: {} },
        textDocument: {
          synchronization: { didSave: true, dynamicRegistration: false },
          publishDiagnostics: { relatedInformation: false, versionSupport: true },
          definition: { linkSupport: true },
          implementation: { linkSupport: true },
          references: {},
          hover: { contentFormat: ['plaintext', 'markdown'] },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          callHierarchy: {},
        },
        window: { workDoneProgress: true },
      },
    };
    const timeout = declaration.startupTimeoutMs;
    const answer = await this.withTimeout(this.connection.sendRequest<InitializeResult>('initialize', params), timeout, `did not answer initialize within ${timeout} ms (startupTimeout)`);
    this.capabilities = answer.capabilities ?? {};
    await this.connection.sendNotification('initialized', {});
    if (declaration.settings !== undefined) await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: declaration.settings });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** A request that fails (never hangs) when the server does not answer in time, dies, or the caller aborts. */
  async request<T>(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    if (this.exited) throw new Error(`LSP server "${this.declaration.name}" is not running`);
    const abort = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(new Error('aborted'));
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    const died = this.exitedPromise.then(() => Promise.reject(new Error(`LSP server "${this.declaration.name}" exited during ${method}`)));
    // The connection may report its end (disposed, stream closed) before the process's exit does.
    const sent = this.connection.sendRequest<T>(method, params).catch(async (error: unknown) => {
      await Promise.race([this.exitedPromise, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
      throw this.exited ? new Error(`LSP server "${this.declaration.name}" exited during ${method}`) : error;
    });
    return this.withTimeout(Promise.race([sent, abort, died]), timeoutMs, `did not answer ${method} within ${timeoutMs} ms`);
  }

  isOpen(uri: string): boolean {
    return this.versions.has(uri);
  }

  /** Opens a document, or sends its whole new text when it is open already; returns the publication counter before it. */
  async sync(uri: string, languageId: string, text: string): Promise<number> {
    const before = this.seq;
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    this.sentAt.set(uri, Date.now());
    if (version === 1) await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    else await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return before;
  }

  diagnosticsOf(uri: string): Diagnostic[] | undefined {
    return this.published.get(uri)?.diagnostics;
  }

  /**
   * Waits for a publication for `uri` newer than `since`, then for `quietMs` without another (servers
   * such as typescript-language-server publish syntax errors first, type errors a moment later), at
   * most `timeoutMs` in all. Undefined when nothing new came in time.
   */
  waitForDiagnostics(uri: string, since: number, timeoutMs: number, quietMs: number, silenceMs = timeoutMs): Promise<Diagnostic[] | undefined> {
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      let silence: NodeJS.Timeout | undefined;
      let heard = false;
      const busy = () => this.busy.size > 0;
      const finish = () => {
        clearTimeout(deadline);
        clearTimeout(silence);
        clearTimeout(quiet);
        this.listeners.delete(listener);
        const latest = this.published.get(uri);
        resolve(latest && latest.seq > since ? latest.diagnostics : undefined);
      };
      // Quiet counts only while the server reports no work in progress (loading a project).
      const settle = () => {
        clearTimeout(quiet);
        quiet = setTimeout(() => (busy() ? settle() : finish()), quietMs);
      };
      const listener = (published: string) => {
        if (published === uri) heard = true;
        // A progress report counts only once the document has been published after the change.
        if (heard && (published === uri || published === '')) settle();
      };
      const deadline = setTimeout(finish, timeoutMs);
      // Some servers publish nothing when nothing changed (typescript-language-server, clean before
      // and after): silence past `silenceMs` while the server reports no work means no news.
      const checkSilence = () => {
        if (heard) return;
        if (busy()) silence = setTimeout(checkSilence, 50);
        else finish();
      };
      silence = setTimeout(checkSilence, silenceMs);
      this.listeners.add(listener);
      void this.exitedPromise.then(finish);
      const latest = this.published.get(uri);
      if (latest && latest.seq > since) listener(uri);
    });
  }

  /** shutdown + exit within the declaration's shutdownTimeout, then the whole process group is stopped. */
  async stop(graceMs = this.declaration.shutdownTimeoutMs): Promise<void> {
    this.stopping = true;
    if (!this.exited && graceMs > 0) {
      try {
        await this.request('shutdown', null, graceMs);
        await this.connection.sendNotification('exit');
        await Promise.race([this.exitedPromise, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      } catch {
        // No answer: the group is stopped below.
      }
    }
    // What the server started (tsserver) may outlive it: the group goes, whatever the server did.
    if (this.process.pid) await killProcessGroup(this.process.pid, 500);
    if (!this.exited) await Promise.race([this.exitedPromise, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }

  private withTimeout<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`LSP server "${this.declaration.name}" (${this.declaration.origin}) ${message}`)), timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}

/** The part of the declaration's settings a `workspace/configuration` item asks for (`a.b` -> settings.a.b). */
function sectionOf(settings: unknown, section: string | undefined): unknown {
  if (!section) return settings ?? null;
  let value: unknown = settings;
  for (const key of section.split('.')) {
    if (typeof value !== 'object' || value === null) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}
