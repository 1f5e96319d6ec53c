import { readFile, stat } from '../async-fs.js';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { errorsAndWarnings, formatFileDiagnostics, newDiagnostics } from './diagnostics.js';
import type { LspManager } from './manager.js';

// Diagnostics after an edit: before write_file or edit_file runs, the file's text is kept (when a
// server is declared for it); after, the server sees the old text (once, for a file it has not
// opened yet) and the new one, and the errors and warnings the new text added go back to the model.

/** Files larger than this are not sent to a language server after an edit. */
const MAX_SYNC_BYTES = 2 * 1024 * 1024;
/** How long a server's first answer must stay quiet to count as complete. */
const COLD_QUIET_MS = 1_000;
/** Silence after a change longer than this many times the server's usual answer time (and this floor) means no news. */
const SILENCE_FACTOR = 4;
// 400 ms missed a shell change's error while the suite ran two workers: tsserver answered later.
const SILENCE_FLOOR_MS = 1_000;

export interface EditDiagnosticsOptions {
  /** How long to wait for the server's answer once it runs (`lsp.diagnosticsTimeoutMs`). */
  timeoutMs: number;
  /** How long the server must stay quiet after a publication before its answer counts as complete. */
  quietMs: number;
}

export class EditDiagnostics {
  /** The text of files about to be edited, by absolute path; null for a file that did not exist. */
  private readonly before = new Map<string, string | null>();
  /** Servers whose being off the model was told of (once each). */
  private readonly toldOff = new Set<string>();

  constructor(
    private readonly manager: LspManager,
    private readonly options: EditDiagnosticsOptions,
  ) {}

  /** Before an edit: starts the file's server (without waiting) and keeps the text it had. */
  async beforeEdit(file: string): Promise<void> {
    if (!this.manager.handles(file)) return;
    this.manager.warmUp(file);
    const info = await stat(file).catch(() => undefined);
    if (!info) this.before.set(file, null);
    else if (info.size <= MAX_SYNC_BYTES) {
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text !== undefined) this.before.set(file, text);
    }
  }

  /**
   * After an edit: the lines for the model about the problems the edit added to `file` (shown as
   * `display`), or undefined when there are none, no server handles the file, or it did not
   * answer in time. Never throws.
   */
  async afterEdit(file: string, display: string): Promise<string | undefined> {
    const before = this.before.get(file);
    this.before.delete(file);
    if (!this.manager.handles(file)) return undefined;
    const info = await stat(file).catch(() => undefined);
    if (!info || info.size > MAX_SYNC_BYTES) return undefined;
    const lines = await this.check(file, display, before);
    if (lines) return `The language server reports new problems after this edit${lines.oldNote}:\n${lines.text}`;
    // A server that cannot run: the model is told once, so it does not read the silence as a clean file.
    const off = this.manager.unavailable(file);
    if (!off || this.toldOff.has(off.server)) return undefined;
    this.toldOff.add(off.server);
    return `${off.problem} (No language server checked this edit.)`;
  }

  /**
   * After a shell command: the files the servers have open that the command changed on disk are sent
   * again, and their new problems listed (all files in parallel, each wait bounded as after an edit).
   */
  async afterCommand(display: (file: string) => string): Promise<string | undefined> {
    try {
      const files = await this.manager.changedOnDisk(MAX_SYNC_BYTES);
      const results = await Promise.all(files.map((file) => this.check(file, display(file), undefined)));
      const found = results.filter((result): result is NonNullable<typeof result> => result !== undefined);
      if (found.length === 0) return undefined;
      return `The language server reports new problems in files this command changed:\n${found.map((result) => result.text).join('\n')}`;
    } catch {
      return undefined;
    }
  }

  /** The new problems of one file as lines, or undefined (no server, no answer in time, none new). Never throws. */
  private check(file: string, display: string, before: string | null | undefined): Promise<{ text: string; oldNote: string } | undefined> {
    // One at a time per file, a prestart's open included: what the server was shown stays known.
    return this.manager.withFile(file, () => this.checkNow(file, display, before));
  }

  private async checkNow(file: string, display: string, before: string | null | undefined): Promise<{ text: string; oldNote: string } | undefined> {
    try {
      const served = await this.manager.serverFor(file);
      if (!served) return undefined;
      // A server that has not published anything yet is still loading its project (tsserver reads
      // the project's lib files first): its first answer may take up to its start-up time, and the
      // parts of it (syntax, then types) come further apart than a warm server's.
      const timeout = () =>
        served.server.hasPublished ? this.options.timeoutMs : Math.max(this.options.timeoutMs, served.server.declaration.startupTimeoutMs);
      const quiet = () => (served.server.hasPublished ? this.options.quietMs : Math.max(this.options.quietMs, COLD_QUIET_MS));
      // A warm server that usually answers in `answerMs` and is silent for several times that has
      // nothing new to say (typescript-language-server publishes nothing for a clean file kept clean).
      const silence = () => {
        const typical = served.server.hasPublished ? served.server.answerMs : undefined;
        return typical === undefined ? timeout() : Math.min(timeout(), Math.max(SILENCE_FLOOR_MS, typical * SILENCE_FACTOR));
      };
      let baseline: Diagnostic[] | undefined;
      const open = served.server.isOpen(served.uri);
      if (open && (typeof before !== 'string' || this.manager.sentText(file) === before)) {
        baseline = this.manager.lastDiagnostics(served);
        // Opened a moment ago (the session's prestart) and not answered yet: that answer is the baseline.
        const opened = this.manager.lastSent(file);
        if (baseline === undefined && opened) baseline = await served.server.waitForDiagnostics(served.uri, opened, timeout(), quiet(), silence());
      } else if (typeof before === 'string') {
        // The server has never seen this file, or was shown other text than the file had before the
        // edit (a prestart that opened it as the edit landed): it sees the old text first, so errors
        // that were already there are known as such.
        const opened = await this.manager.sync(file, before);
        if (opened) baseline = await served.server.waitForDiagnostics(served.uri, opened.sent, timeout(), quiet(), silence());
      }
      const changed = await this.manager.sync(file);
      if (!changed) return undefined;
      const after = await served.server.waitForDiagnostics(served.uri, changed.sent, timeout(), quiet(), silence());
      if (!after) return undefined;
      const { fresh, old } = newDiagnostics(errorsAndWarnings(after), baseline && errorsAndWarnings(baseline));
      if (fresh.length === 0) return undefined;
      return { text: formatFileDiagnostics(display, fresh).join('\n'), oldNote: old > 0 ? ` (${old} that were there before this edit not listed)` : '' };
    } catch {
      return undefined;
    }
  }
}
