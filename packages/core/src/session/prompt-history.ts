import { readdir, readFile, stat } from '../async-fs.js';
import path from 'node:path';

/** A prompt the user typed in one of this workspace's sessions. */
export interface StoredPrompt {
  /** What they typed (`display` for an expanded command such as `/review 42`). */
  text: string;
  timestamp: number;
}

// Records are written with fixed key order (SessionWriter), so a user message shows in a fixed prefix:
// only those lines are parsed, not the tool outputs and answers that make most of a session's bytes.
const USER_MESSAGE = Buffer.from('\n{"type":"message","message":{"role":"user"');
/** Messages that come from the person's keyboard; loaded skills (`skill`) do not. */
const TYPED = new Set([undefined, 'prompt', 'steering', 'follow_up', 'command']);

/**
 * The prompts typed in the sessions stored in `dir` (one workspace's), newest first, each text once
 * (its newest use). The newest session files are read first and reading stops at `limit` prompts,
 * so a workspace with years of sessions costs what its recent ones do. For Ctrl+R in the chat.
 */
export async function storedPrompts(dir: string, limit = 1000): Promise<StoredPrompt[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const files = await Promise.all(
    names.map(async (name) => ({
      file: path.join(dir, name),
      mtime: await stat(path.join(dir, name)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    })),
  );
  files.sort((a, b) => b.mtime - a.mtime || b.file.localeCompare(a.file));
  const newest = new Map<string, number>();
  for (const { file } of files) {
    if (newest.size >= limit) break;
    const buffer = await readFile(file).catch(() => undefined);
    if (!buffer) continue;
    for (const prompt of userPrompts(buffer)) {
      if ((newest.get(prompt.text) ?? -Infinity) < prompt.timestamp) newest.set(prompt.text, prompt.timestamp);
    }
  }
  return [...newest]
    .map(([text, timestamp]) => ({ text, timestamp }))
    .sort((a, b) => b.timestamp - a.timestamp)
    .slice(0, limit);
}

/** The prompts typed in one session file, oldest first (the resume picker's search and preview). */
export async function sessionPrompts(file: string): Promise<string[]> {
  const buffer = await readFile(file).catch(() => undefined);
  return buffer ? userPrompts(buffer).map((prompt) => prompt.text) : [];
}

function userPrompts(buffer: Buffer): StoredPrompt[] {
  const out: StoredPrompt[] = [];
  for (let at = buffer.indexOf(USER_MESSAGE); at !== -1; at = buffer.indexOf(USER_MESSAGE, at + 1)) {
    const end = buffer.indexOf(10, at + 1);
    let record: { message?: { content?: unknown; display?: unknown; origin?: unknown; timestamp?: unknown } };
    try {
      record = JSON.parse(buffer.toString('utf8', at + 1, end === -1 ? buffer.length : end)) as typeof record;
    } catch {
      // A line cut off by a crash mid-write.
      continue;
    }
    const message = record.message;
    if (!message || !TYPED.has(message.origin as string | undefined)) continue;
    const text = typeof message.display === 'string' ? message.display : typeof message.content === 'string' ? message.content : '';
    if (!text.trim()) continue;
    out.push({ text: text.trim(), timestamp: typeof message.timestamp === 'number' ? message.timestamp : 0 });
  }
  return out;
}
