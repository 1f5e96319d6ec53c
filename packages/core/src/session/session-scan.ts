import { readFileSync, statSync } from 'node:fs';
import type { SessionHeader, SessionSummary } from './types.js';

// Records are written by SessionWriter with fixed key order, so their kind shows in a fixed prefix:
// counting prefixes in the raw bytes is much cheaper than parsing every line of every session.
const MESSAGE = Buffer.from('\n{"type":"message","message":{"role":"');
const ASSISTANT = Buffer.from('assistant"');
const USER = Buffer.from('user"');
const MODEL_META = Buffer.from('\n{"type":"meta","kind":"model"');
const TITLE_META = Buffer.from('\n{"type":"meta","kind":"title"');

const FIRST_PROMPT_CHARS = 80;

/** Summarises one session file for listings; undefined when it is not a readable session. */
export function summarizeSession(file: string): SessionSummary | undefined {
  let buffer: Buffer;
  let mtime: Date;
  try {
    buffer = readFileSync(file);
    mtime = statSync(file).mtime;
  } catch {
    return undefined;
  }
  const headerEnd = buffer.indexOf(10);
  const header = parseLine(buffer, 0, headerEnd === -1 ? buffer.length : headerEnd) as Partial<SessionHeader> | undefined;
  if (header?.type !== 'session' || typeof header.id !== 'string') return undefined;

  let turns = 0;
  let prompts = 0;
  let messageCount = 0;
  let firstPrompt: string | undefined;
  for (let at = buffer.indexOf(MESSAGE, headerEnd); at !== -1; at = buffer.indexOf(MESSAGE, at + 1)) {
    const lineStart = at + 1;
    const lineEnd = buffer.indexOf(10, lineStart);
    // An unterminated last line may be cut off mid-write; count it only if it is whole.
    if (lineEnd === -1 && parseLine(buffer, lineStart, buffer.length) === undefined) break;
    messageCount++;
    const role = at + MESSAGE.length;
    if (startsWithAt(buffer, ASSISTANT, role)) turns++;
    else if (startsWithAt(buffer, USER, role)) {
      const text = promptText(parseLine(buffer, lineStart, lineEnd === -1 ? buffer.length : lineEnd));
      if (text !== undefined) prompts++;
      if (firstPrompt === undefined) firstPrompt = text;
    }
  }

  let { provider = '', model = '' } = header;
  const lastSwitch = buffer.lastIndexOf(MODEL_META);
  if (lastSwitch !== -1) {
    const end = buffer.indexOf(10, lastSwitch + 1);
    const meta = parseLine(buffer, lastSwitch + 1, end === -1 ? buffer.length : end) as { provider?: unknown; model?: unknown } | undefined;
    if (typeof meta?.provider === 'string') provider = meta.provider;
    if (typeof meta?.model === 'string') model = meta.model;
  }

  let title: string | undefined;
  const lastTitle = buffer.lastIndexOf(TITLE_META);
  if (lastTitle !== -1) {
    const end = buffer.indexOf(10, lastTitle + 1);
    const meta = parseLine(buffer, lastTitle + 1, end === -1 ? buffer.length : end) as { title?: unknown } | undefined;
    if (typeof meta?.title === 'string' && meta.title.trim()) title = meta.title.trim();
  }

  return {
    id: header.id,
    path: file,
    ...(title ? { title } : {}),
    workspaceRoot: typeof header.workspaceRoot === 'string' ? header.workspaceRoot : '',
    ...(typeof header.gitBranch === 'string' ? { gitBranch: header.gitBranch } : {}),
    startedAt: typeof header.startedAt === 'string' ? header.startedAt : mtime.toISOString(),
    lastActivity: mtime.toISOString(),
    turns,
    prompts,
    firstPrompt: firstPrompt ?? '',
    provider,
    model,
    messageCount,
  };
}

function startsWithAt(buffer: Buffer, needle: Buffer, at: number): boolean {
  return buffer.compare(needle, 0, needle.length, at, at + needle.length) === 0;
}

function parseLine(buffer: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buffer.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/**
 * The text a user would recognise: what they typed (`display` for expanded commands). Returns
 * undefined for messages they did not type (loaded skills), so the scan keeps looking.
 */
function promptText(record: unknown): string | undefined {
  const message = (record as { message?: { content?: unknown; display?: unknown; origin?: unknown } } | undefined)?.message;
  if (!message || message.origin === 'skill') return undefined;
  const text = typeof message.display === 'string' ? message.display : typeof message.content === 'string' ? message.content : '';
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= FIRST_PROMPT_CHARS) return line;
  const cut = line.slice(0, FIRST_PROMPT_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  // Prefer ending on a whole word unless that throws away much of the line.
  return `${space > FIRST_PROMPT_CHARS * 0.75 ? cut.slice(0, space) : cut}…`;
}
