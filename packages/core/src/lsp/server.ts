import type { ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, InitializeParams, InitializeResult, PublishDiagnosticsParams, ServerCapabilities } from 'vscode-languageserver-protocol';
import { killProcessGroup, newRunTag, RUN_TAG_VARIABLE, sweepAtExit, trackProcessGroup, untrackProcessGroup } from '../tools/process-tree.js';
import { commandLineOf, type LspServerDeclaration } from './declarations.js';
import { builtin } from '../node-builtins.js';

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
  /** Aborted when the session closes: a server still starting is stopped at once rather than waited for. */
  signal?: AbortSignal;
}

/** A diagnostics publication kept per document: what the server said last, and a counter to wait on. */
interface Published {
  diagnostics: Diagnostic[];
  seq: number;
  /** When it arrived (Date.now()). */
  at: number;
  /** The document version it names, when the server names one. */
  version?: number;
  /** It came so soon after a change that it may describe the text before it (see staleWindowMs). */
  early: boolean;
}

/** A document sent to the server: the publication counter before it, when, and its version. */
export interface SentDocument {
  since: number;
  at: number;
  version: number;
}

/** How many recent answer times and burst gaps are kept to learn how a server publishes. */
const SAMPLES = 9;
/** Publications of one document closer together than this are parts of one answer (syntax, then types). */
const BURST_HORIZON_MS = 1_000;
/** Until a server's warm answer time is known: typescript-language-server's stale publications come within tens of ms. */
const FIRST_STALE_WINDOW_MS = 100;
/** The most the quiet wait grows to when a server's answers come in parts far apart. */
const MAX_QUIET_MS = 1_000;

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
  /** True once a publication named its document version: then a publication is known fresh by its version. */
  private namesVersions = false;
  /** When each document was last sent, and how long its answer has taken so far, to learn how fast the server answers. */
  private readonly answering = new Map<string, { sent: number; cold: boolean; ms?: number }>();
  /** How long recent changes took to be answered, by document and when it was sent; warm server only (ms). */
  private readonly answers = new Map<string, number>();
  /** How long the answer to the first document took, the project loading included (ms). */
  private coldAnswerMs: number | undefined;
  /** Recent gaps between the parts of one answer (typescript-language-server: syntax, then types, when tsserver is slow). */
  private readonly burstGaps: number[] = [];
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
    sweepAtExit();
    const child = builtin('node:child_process').spawn(declaration.command, declaration.args, {
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
      throw new Error(
        notFound
          ? `LSP server "${declaration.name}" (${declaration.origin}) is not installed: \`${declaration.command}\` was not found on PATH`
          : `LSP server "${declaration.name}" (${declaration.origin}) could not start \`${commandLineOf(declaration)}\`: ${spawned.message}`,
      );
    }
    trackProcessGroup(child.pid!);
    const server = new RunningServer(options, child);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error(`LSP server "${declaration.name}" was stopped while starting (the session ended)`));
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      await Promise.race([server.initialize(), aborted]);
      return server;
    } catch (error) {
      await server.stop(0);
      throw error;
    } finally {
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private listen(): void {
    const settings = this.declaration.settings;
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => this.onPublish(params));
    this.connection.onNotification('$/progress', (params: { token: string | number; value?: { kind?: string } }) => {
      if (params.value?.kind === 'begin') this.busy.add(params.token);
      else if (params.value?.kind === 'end') this.busy.delete(params.token);
      for (const listener of this.listeners) listener('');
    });
    this.connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) =>
      params.items.map((item) => sectionOf(settings, item.section)),
    );
    this.connection.onRequest('workspace/workspaceFolders', () => [{ uri: pathToFileURL(this.root).href, name: this.declaration.name }]);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('client/unregisterCapability', () => null);
    this.connection.onRequest('window/showMessageRequest', () => null);
    this.connection.onRequest('workspace/applyEdit', () => ({ applied: false, failureReason: 'Beans applies no edits from language servers' }));
    this.connection.onError(() => undefined);
    this.connection.listen();
  }

  private onPublish(params: PublishDiagnosticsParams): void {
    const { uri } = params;
    const now = Date.now();
    const version = this.versions.get(uri);
    if (typeof params.version === 'number') {
      this.namesVersions = true;
      // A publication for an older version of a document we changed since is already stale.
      if (version !== undefined && params.version < version) return;
    }
    const answer = this.answering.get(uri);
    const sent = answer?.sent;
    // A server that names no version (typescript-language-server) may publish what it computed for
    // the text before a change just after the change: its own answer comes later, after its delay.
    // (A document just opened had no text before.)
    const early = !this.namesVersions && version !== undefined && version > 1 && sent !== undefined && now - sent < this.staleWindowMs;
    const previous = this.published.get(uri);
    const sameAnswer = previous !== undefined && now - previous.at < BURST_HORIZON_MS && (sent === undefined || sent < previous.at);
    if (sameAnswer && !previous.early && !early) remember(this.burstGaps, now - previous.at);
    // How long the server took to answer a change: to the last part of the answer, so a
    // publication for the text before the change does not pass for a fast answer.
    if (answer && (answer.ms === undefined || sameAnswer)) {
      answer.ms = now - answer.sent;
      if (answer.cold) this.coldAnswerMs = answer.ms;
      else {
        this.answers.set(`${uri} ${answer.sent}`, answer.ms);
        if (this.answers.size > SAMPLES) this.answers.delete(this.answers.keys().next().value!);
      }
    }
    this.hasPublished = true;
    this.published.set(uri, {
      diagnostics: params.diagnostics,
      seq: ++this.seq,
      at: now,
      ...(typeof params.version === 'number' ? { version: params.version } : {}),
      early,
    });
    for (const listener of this.listeners) listener(uri);
  }

  /** The server's usual time from a change to its answer: the median of recent warm answers, else its first answer (ms). */
  get answerMs(): number | undefined {
    return this.warmAnswerMs ?? this.coldAnswerMs;
  }

  private get warmAnswerMs(): number | undefined {
    const recent = [...this.answers.values()].sort((a, b) => a - b);
    return recent.length ? recent[Math.floor(recent.length / 2)] : undefined;
  }

  /** Publications this soon after a change, from a server that names no version, may be for the text before it. */
  private get staleWindowMs(): number {
    const typical = this.warmAnswerMs;
    return typical === undefined ? FIRST_STALE_WINDOW_MS : typical / 2;
  }

  /** How long to stay quiet after a publication: longer when this server's answers came in parts further apart. */
  private quietAfter(quietMs: number): number {
    const widest = this.burstGaps.length ? Math.max(...this.burstGaps) : 0;
    return Math.max(quietMs, Math.min(MAX_QUIET_MS, Math.round(widest * 1.5)));
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
    const answer = await this.withTimeout(
      this.connection.sendRequest<InitializeResult>('initialize', params),
      timeout,
      `did not answer initialize within ${timeout} ms (startupTimeout)`,
    );
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

  /** Opens a document, or sends its whole new text when it is open already. */
  async sync(uri: string, languageId: string, text: string): Promise<SentDocument> {
    const since = this.seq;
    const version = (this.versions.get(uri) ?? 0) + 1;
    const at = Date.now();
    this.versions.set(uri, version);
    this.answering.set(uri, { sent: at, cold: !this.hasPublished });
    if (version === 1) await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    else await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return { since, at, version };
  }

  diagnosticsOf(uri: string): Diagnostic[] | undefined {
    return this.published.get(uri)?.diagnostics;
  }

  /**
   * Waits for the server's answer to `sent`: a publication for `uri` after it, then quiet without
   * another (servers such as typescript-language-server publish syntax errors first, type errors a
   * moment later), at most `timeoutMs` in all. A publication that may describe the text before the
   * change (it came too soon, from a server that names no version) does not end the wait: the next
   * one does, or silence. Undefined when nothing came in time.
   */
  waitForDiagnostics(uri: string, sent: SentDocument, timeoutMs: number, quietMs: number, silenceMs = timeoutMs): Promise<Diagnostic[] | undefined> {
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      let silence: NodeJS.Timeout | undefined;
      let heard = false;
      const busy = () => this.busy.size > 0;
      const newest = () => {
        const latest = this.published.get(uri);
        return latest && latest.seq > sent.since ? latest : undefined;
      };
      const finish = () => {
        clearTimeout(deadline);
        clearTimeout(silence);
        clearTimeout(quiet);
        this.listeners.delete(listener);
        resolve(newest()?.diagnostics);
      };
      // Quiet counts only while the server reports no work in progress (loading a project).
      const settle = () => {
        clearTimeout(quiet);
        quiet = setTimeout(() => (busy() ? settle() : finish()), this.quietAfter(quietMs));
      };
      const listener = (published: string) => {
        if (published === uri) {
          const latest = newest();
          if (latest && (latest.version === sent.version || !latest.early)) heard = true;
        }
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
      if (newest()) listener(uri);
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

/** Keeps the last SAMPLES values. */
function remember(samples: number[], value: number): void {
  samples.push(value);
  if (samples.length > SAMPLES) samples.shift();
}
