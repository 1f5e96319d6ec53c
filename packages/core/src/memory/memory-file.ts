import * as fs from '../async-fs.js';
import path from 'node:path';
import { ToolInputError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { stripTerminalControls } from '../terminal-text.js';
import { readFileConfined, statOrUndefined, workspaceTempDir, writeFileAtomic } from '../tools/file-io.js';

/** Where the `memory` tool records what the agent learned about the project (joins the context files). */
export const MEMORY_FILE = path.join('.beans', 'memory.md');

const MEMORY_HEADER = '# Project memory\n\nDurable facts Beans recorded about this project (build commands, conventions). Edit or delete freely.\n';
/** A note is one line of a list; longer text is not a fact but a document. */
const MAX_NOTE_CHARS = 500;

export interface AppendOutcome {
  file: string;
  /** False when the same note was already there. */
  added: boolean;
  before: string;
  after: string;
}

/**
 * One note as a Markdown list line: whitespace folded to single spaces, a leading `#` or `-` taken
 * off (the chat's `#` shortcut and a model's own bullet), refused when empty or too long.
 */
export function noteLine(text: string): string {
  // No escape sequences in a file people `cat` and every session reads as context.
  const folded = stripTerminalControls(text.replace(/\s+/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^#+\s*/, '')
    .replace(/^[-*]\s+/, '');
  if (folded === '') throw new ToolInputError('The note is empty. Write the fact itself, e.g. "Run tests with pnpm test".');
  if (folded.length > MAX_NOTE_CHARS) throw new ToolInputError(`The note is ${folded.length} characters; keep it under ${MAX_NOTE_CHARS}, one fact per note.`);
  return `- ${folded}`;
}

/** The file's text after adding a note (a new file gets `header`); unchanged when the note is there. */
export function withNote(before: string, line: string, header = ''): string {
  if (before.split('\n').some((existing) => existing.trim() === line)) return before;
  const base = before === '' ? header : before;
  const separator = base === '' || base.endsWith('\n') ? '' : '\n';
  const gap = base === header && header !== '' ? '\n' : '';
  return `${base}${separator}${gap}${line}\n`;
}

/**
 * Appends a note to a Markdown file, creating it (and its folder) when missing. With `confineTo`,
 * the file is read and written through folders opened from that root, so a linked `.beans` folder
 * cannot send the write elsewhere.
 */
export async function appendNote(file: string, text: string, options: { header?: string; confineTo?: string } = {}): Promise<AppendOutcome> {
  const line = noteLine(text);
  // In a workspace the lock stays out of the way in .git (else at its root, never through a linked folder).
  const lockDir = options.confineTo ? (workspaceTempDir({ root: options.confineTo, isGit: true }) ?? options.confineTo) : undefined;
  if (!lockDir) await fs.mkdir(path.dirname(file), { recursive: true });
  // Under a lock every Beans process takes: notes recorded by several sessions at once all stay.
  return withFileLock(
    file,
    async () => {
      const stats = await statOrUndefined(file);
      if (stats && !stats.isFile()) throw new ToolInputError(`${file} is not a regular file, so no note was written to it.`);
      const before = stats ? (await readFileConfined(options.confineTo, file)).toString('utf8') : '';
      const after = withNote(before, line, options.header);
      if (after === before) return { file, added: false, before, after };
      await writeFileAtomic(file, after, stats, options.confineTo ? { root: options.confineTo } : undefined);
      return { file, added: true, before, after };
    },
    { lockDir },
  );
}

/** Adds a fact to the workspace's `.beans/memory.md`. */
export function appendMemoryFact(workspaceRoot: string, fact: string): Promise<AppendOutcome> {
  return appendNote(path.join(workspaceRoot, MEMORY_FILE), fact, { header: MEMORY_HEADER, confineTo: workspaceRoot });
}

/** Where a `#` note from the chat goes: the project's AGENTS.md or the user's own. */
export type NoteTarget = 'project' | 'user';

export interface MemoryLocations {
  workspaceRoot: string;
  /** `~/.config/beans-agent` (its AGENTS.md is the user's memory, read in every workspace). */
  configDir: string;
}

export interface MemoryFileInfo {
  label: string;
  path: string;
  exists: boolean;
}

export function noteTargetPath(target: NoteTarget, where: MemoryLocations): string {
  return target === 'project' ? path.join(where.workspaceRoot, 'AGENTS.md') : path.join(where.configDir, 'AGENTS.md');
}

/** Saves a `#` note from the chat; returns a line to show. */
export async function saveNote(target: NoteTarget, text: string, where: MemoryLocations): Promise<string> {
  const file = noteTargetPath(target, where);
  const outcome = await appendNote(file, text, target === 'project' ? { confineTo: where.workspaceRoot } : {});
  return outcome.added ? `Noted in ${file}.` : `${file} already has this note.`;
}

/** The memory files `/memory` offers: the project's AGENTS.md, the agent's memory, the user's AGENTS.md. */
export async function memoryFiles(where: MemoryLocations): Promise<MemoryFileInfo[]> {
  const entries = [
    { label: 'Project memory (AGENTS.md)', path: noteTargetPath('project', where) },
    { label: 'Agent memory (.beans/memory.md)', path: path.join(where.workspaceRoot, MEMORY_FILE) },
    { label: 'User memory', path: noteTargetPath('user', where) },
  ];
  return Promise.all(entries.map(async (entry) => ({ ...entry, exists: (await statOrUndefined(entry.path))?.isFile() === true })));
}

/**
 * A one-line message starting with `#` is a note for memory, as in Claude Code; `#` alone is not,
 * nor `#123 ...` (an issue number the model should read).
 */
export function isMemoryNote(text: string): boolean {
  return /^#(?!\d)\s*\S/.test(text) && !text.includes('\n');
}
