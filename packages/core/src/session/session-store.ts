import { existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AgentMessage } from '../agent/types.js';
import { UsageError } from '../errors.js';
import { isSafeSessionId, newSessionId } from './session-id.js';
import { lockSession } from './session-lock.js';
import { summarizeSession } from './session-scan.js';
import { gitBranch } from '../workspace/git-branch.js';
import { SessionWriter } from './session-writer.js';
import { SESSION_FORMAT_VERSION, type LoadedSession, type SessionHeader, type SessionMeta, type SessionSummary, type SubagentTranscript } from './types.js';

export interface NewSessionFields {
  cwd: string;
  workspaceRoot: string;
  provider: string;
  model: string;
  /** Defaults to a new time-sortable id. */
  id?: string;
  startedAt?: Date;
}

/** A session id the user gave matched none or several sessions. */
export class SessionLookupError extends UsageError {
  constructor(
    message: string,
    /** Matching ids when ambiguous, recent ids when nothing matched; newest first. */
    readonly candidates: string[],
  ) {
    super(message);
  }
}

const EXTENSION = '.jsonl';
const ROLES = new Set(['user', 'assistant', 'tool', 'note']);

/** The sessions of one workspace: one JSONL file each, in one folder. */
export class SessionStore {
  constructor(readonly dir: string) {}

  pathOf(id: string): string {
    if (!isSafeSessionId(id)) throw new UsageError(`"${id}" is not a valid session id.`);
    return path.join(this.dir, id + EXTENSION);
  }

  /** A fresh time-sortable id not used by any session here (for callers that create lazily). */
  newId(): string {
    for (;;) {
      const id = newSessionId();
      if (!existsSync(this.pathOf(id))) return id;
    }
  }

  /** Starts a new session; its file appears with the first record appended. */
  create(fields: NewSessionFields): SessionWriter {
    const id = fields.id ?? newSessionId(fields.startedAt);
    const header: SessionHeader = {
      type: 'session',
      id,
      version: SESSION_FORMAT_VERSION,
      cwd: fields.cwd,
      workspaceRoot: fields.workspaceRoot,
      provider: fields.provider,
      model: fields.model,
      startedAt: (fields.startedAt ?? new Date()).toISOString(),
    };
    const branch = gitBranch(fields.workspaceRoot);
    if (branch) header.gitBranch = branch;
    const file = this.pathOf(id);
    if (existsSync(file)) throw new UsageError(`A session with the id ${id} already exists; open it instead.`);
    return new SessionWriter(id, file, { header });
  }

  /** Keeps appending to an existing session (a resume). */
  open(id: string): SessionWriter {
    const file = this.pathOf(id);
    if (!existsSync(file)) throw this.notFound(id);
    const unlock = lockSession(file, id);
    let fd: number;
    try {
      fd = openSync(file, 'a+', 0o600);
    } catch (error) {
      unlock();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw this.notFound(id);
      throw error;
    }
    // After a crash mid-write the file may end inside a line; start a fresh one so the next record
    // is not glued to the damaged one (which load skips).
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) writeSync(fd, '\n');
    }
    return new SessionWriter(id, file, { fd, unlock });
  }

  /** Reads a whole session. Damaged lines (a crash mid-write) are skipped with a warning. */
  load(id: string): LoadedSession {
    const file = this.pathOf(id);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw this.notFound(id);
      throw error;
    }
    return parseSession(text, file);
  }

  /** Every session of this workspace, most recently active first. */
  list(): SessionSummary[] {
    const summaries: SessionSummary[] = [];
    for (const id of this.ids()) {
      const summary = summarizeSession(path.join(this.dir, id + EXTENSION));
      if (summary) summaries.push(summary);
    }
    return summaries.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity) || b.id.localeCompare(a.id));
  }

  /**
   * The newest sessions of every workspace kept beside this one (the folders next to this store's),
   * at most `limit` files read, most recently active first.
   */
  listEveryWorkspace(limit = 300): SessionSummary[] {
    const root = path.dirname(this.dir);
    let folders: string[];
    try {
      folders = readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(root, entry.name));
    } catch {
      return this.list();
    }
    const files = folders
      .flatMap((dir) => new SessionStore(dir).ids().map((id) => path.join(dir, id + EXTENSION)))
      .map((file) => ({ file, mtime: mtimeMs(file) }))
      .sort((a, b) => b.mtime - a.mtime)
      .slice(0, limit);
    return files.flatMap(({ file }) => summarizeSession(file) ?? []);
  }

  /** The most recently active session (what `--continue` resumes); only that file is read. */
  newest(): SessionSummary | undefined {
    const byActivity = this.ids()
      .map((id) => ({ id, mtime: mtimeMs(path.join(this.dir, id + EXTENSION)) }))
      .sort((a, b) => b.mtime - a.mtime || b.id.localeCompare(a.id));
    for (const { id } of byActivity) {
      const summary = summarizeSession(path.join(this.dir, id + EXTENSION));
      if (summary) return summary;
    }
    return undefined;
  }

  /**
   * The full id for what the user typed: the id itself, a unique prefix, or a unique start of the
   * random tail (`ab12` for `2026-11-22T10-53-04-ab12cd`).
   */
  resolveId(prefix: string): string {
    const wanted = prefix.trim().replace(/\.jsonl$/, '');
    if (!wanted) throw new UsageError('Give a session id (or the start of one); "beans sessions list" shows them.');
    const ids = this.ids().sort().reverse();
    if (ids.includes(wanted)) return wanted;
    let matches = ids.filter((id) => id.startsWith(wanted));
    if (matches.length === 0) matches = ids.filter((id) => tailOf(id).startsWith(wanted));
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) {
      const shown = matches.slice(0, 10);
      throw new SessionLookupError(
        `"${wanted}" matches ${matches.length} sessions: ${shown.join(', ')}${matches.length > shown.length ? ', …' : ''}. Give more of the id.`,
        matches,
      );
    }
    throw this.notFound(wanted, ids);
  }

  private notFound(id: string, ids: string[] = this.ids().sort().reverse()): SessionLookupError {
    const recent = ids.slice(0, 5);
    const hint = recent.length > 0 ? ` Recent ones: ${recent.join(', ')}.` : ' This workspace has no sessions yet.';
    return new SessionLookupError(`No session "${id}" in this workspace.${hint} "beans sessions list" shows them all.`, recent);
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((name) => name.endsWith(EXTENSION)).map((name) => name.slice(0, -EXTENSION.length));
  }
}

function tailOf(id: string): string {
  return id.slice(id.lastIndexOf('-') + 1);
}

function mtimeMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Parses a session file's text; exported for tools that read a file by path. */
export function parseSession(text: string, file: string): LoadedSession {
  const lines = text.split('\n');
  // A file that ends with a newline splits into a trailing '': not a line.
  if (lines[lines.length - 1] === '') lines.pop();
  const warnings: string[] = [];
  const header = parseJson(lines[0] ?? '') as Partial<SessionHeader> | undefined;
  if (header?.type !== 'session' || typeof header.id !== 'string') {
    throw new UsageError(`${file} is not a Beans session: its first line is not a session header.`);
  }
  if (typeof header.version === 'number' && header.version > SESSION_FORMAT_VERSION) {
    warnings.push(`${file} was written by a newer Beans (format ${header.version}); parts of it may not load.`);
  }
  const messages: AgentMessage[] = [];
  const meta: SessionMeta[] = [];
  const subagents = new Map<string, SubagentTranscript>();
  let provider = header.provider ?? '';
  let model = header.model ?? '';
  let sop: string | undefined;

  for (let index = 1; index < lines.length; index++) {
    const line = lines[index];
    if (line.trim() === '') continue;
    const parsed = parseJson(line);
    // Valid JSON that is not an object (`null`, a number, a string) is as damaged as cut-off text.
    const record =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { type?: unknown; message?: unknown; kind?: unknown }) : undefined;
    if (record === undefined) {
      const isLast = index === lines.length - 1;
      warnings.push(
        isLast && !text.endsWith('\n')
          ? `Skipped the last line of ${file}: it was cut off mid-write (probably a crash). Everything before it loaded.`
          : `Skipped line ${index + 1} of ${file}: it is damaged.`,
      );
      continue;
    }
    if (record.type === 'message') {
      const message = asMessage(record.message);
      if (message) messages.push(message);
      else warnings.push(`Skipped line ${index + 1} of ${file}: not a message Beans knows.`);
    } else if (record.type === 'subagent') {
      const link = record as { toolCallId?: unknown; agent?: unknown };
      const message = asMessage(record.message);
      if (!message || typeof link.toolCallId !== 'string') {
        warnings.push(`Skipped line ${index + 1} of ${file}: not a subagent message Beans knows.`);
        continue;
      }
      let transcript = subagents.get(link.toolCallId);
      if (!transcript) subagents.set(link.toolCallId, (transcript = { agent: typeof link.agent === 'string' ? link.agent : '', messages: [] }));
      transcript.messages.push(message);
    } else if (record.type === 'meta') {
      const entry = record as SessionMeta;
      meta.push(entry);
      if (entry.kind === 'model' && typeof entry.model === 'string') {
        provider = entry.provider;
        model = entry.model;
      } else if (entry.kind === 'sop' && typeof entry.sop === 'string') {
        sop = entry.sop;
      } else if (entry.kind === 'rewind' && typeof entry.uuid === 'string') {
        // The log is append-only: a rewind is a marker, and loading cuts the conversation there.
        const at = messages.findLastIndex((message) => message.role === 'user' && message.uuid === entry.uuid);
        if (at >= 0) messages.splice(at);
      }
    }
    // Other record types come from newer versions; skipping them keeps old Beans able to resume.
  }
  return { header: header as SessionHeader, path: file, messages, meta, subagents, provider, model, sop, warnings };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function asMessage(value: unknown): AgentMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as { role?: unknown; toolCalls?: unknown };
  if (typeof message.role !== 'string' || !ROLES.has(message.role)) return undefined;
  if (message.role === 'assistant' && !Array.isArray(message.toolCalls)) return { ...(value as AgentMessage), toolCalls: [] } as AgentMessage;
  return value as AgentMessage;
}
