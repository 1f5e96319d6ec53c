import { ToolInputError } from '../errors.js';

/** A regex search that runs longer than this is stopped (catastrophic backtracking). */
export const REGEX_DEADLINE_MS = 20_000;

/**
 * The JavaScript engine's matching runs in a worker thread, because one catastrophic regex such as
 * `(a+)+$` can run for minutes inside a single `RegExp.test` call, and nothing on the main thread
 * (Ctrl+C, a timer) runs until it returns. The worker is terminated at the deadline or on abort.
 * Self-contained source (no imports of ours), so it runs the same from src and dist.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { root, paths, pattern, flags } = workerData;
const lineRegex = new RegExp(pattern, flags);
const fileRegex = new RegExp(pattern, flags + 'm');
const SNIFF = 8000;
let batch = [];
const flush = () => { if (batch.length) { parentPort.postMessage({ matches: batch }); batch = []; } };
for (const rel of paths) {
  let buffer;
  try { buffer = fs.readFileSync(root + '/' + rel); } catch { continue; }
  if (buffer.subarray(0, SNIFF).includes(0)) continue;
  const text = buffer.toString('utf8');
  if (!fileRegex.test(text)) continue;
  let lineNo = 1, pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\\n', pos);
    const end = nl === -1 ? text.length : nl;
    if (end > pos || nl !== -1) {
      const line = text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end);
      if (lineRegex.test(line)) batch.push([rel, lineNo, line]);
    }
    if (nl === -1) break;
    lineNo++; pos = nl + 1;
  }
  if (batch.length >= 200) flush();
}
flush();
parentPort.postMessage({ done: true });
`;

export interface WorkerSearch {
  root: string;
  paths: string[];
  pattern: string;
  flags: string;
  signal: AbortSignal;
  deadlineMs?: number;
}

/** Searches `paths` in a worker; `onMatch` returning false stops early. Rejects on the deadline or abort. */
export async function searchInWorker(search: WorkerSearch, onMatch: (file: string, line: number, text: string) => boolean): Promise<void> {
  // Loaded here, not at the top: every start paid ~3 ms for worker_threads that only regex searches use.
  const { Worker } = await import('node:worker_threads');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { root: search.root, paths: search.paths, pattern: search.pattern, flags: search.flags },
    });
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      search.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve();
    };
    const deadline = search.deadlineMs ?? REGEX_DEADLINE_MS;
    const timer = setTimeout(
      () =>
        finish(
          new ToolInputError(
            `The regex ${JSON.stringify(search.pattern)} took longer than ${deadline / 1000}s and was stopped; it backtracks catastrophically (nested quantifiers such as (a+)+). Rewrite it without nested repetition, or search for a literal part of it.`,
          ),
        ),
      deadline,
    );
    const onAbort = () => finish(search.signal.reason instanceof Error ? search.signal.reason : new DOMException('The search was interrupted.', 'AbortError'));
    search.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: { matches?: [string, number, string][]; done?: true }) => {
      for (const [file, line, text] of message.matches ?? []) {
        if (!onMatch(file, line, text)) return finish();
      }
      if (message.done) finish();
    });
    worker.on('error', (error) => finish(error));
    worker.on('exit', () => finish());
  });
}
