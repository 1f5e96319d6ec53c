import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolInputError } from '../errors.js';
import { builtin } from '../node-builtins.js';
import { formatBytes } from './text.js';

/**
 * A read's bounds on decoding (issue 53 item 4): a 961 KB PDF whose one stream inflated to ~400 MB
 * took 1.2 GB and two minutes to read, pages "1" included. The text is extracted by pdf-child.js in
 * a process of its own: beyond this much memory, or this long, it is ended and the model gets one
 * sentence. Beans' own process holds the file and the text, never the decoded streams.
 */
const PDF_LIMITS = {
  /** Resident memory of the extracting process (Node and PDF.js take ~60 MB of it before the file). */
  maxRssBytes: 384 * 1024 * 1024,
  timeoutMs: 15_000,
  /** A page's text is cut here: a page is a few thousand characters. */
  maxPageChars: 100_000,
};

export type PdfText = { totalPages: number; from: number; to: number; pages: string[] };

type Answer = ({ kind: 'text' } & PdfText) | { kind: 'password' } | { kind: 'invalid'; message: string } | { kind: 'pages'; message: string };

/**
 * Where the child script is: beside this module (packages/core/dist/tools), beside the bundle's
 * chunks, or (this module run from its TypeScript source, in core's unit tests) in dist.
 */
function childScript(): string {
  const candidates = ['./pdf-child.js', '../../dist/tools/pdf-child.js'].map((relative) => fileURLToPath(new URL(relative, import.meta.url)));
  const script = candidates.find((candidate) => existsSync(candidate));
  if (!script) throw new Error(`Beans' PDF reader is missing (${candidates[0]}); rebuild Beans.`);
  return script;
}

// One extraction at a time: tool calls run in parallel, and four PDFs read at once would each be
// allowed the whole bound.
let queue: Promise<unknown> = Promise.resolve();

/** The text of pages `pages` (all, up to 20, when undefined) of a PDF, or a ToolInputError in one sentence. */
export function extractPdfText(bytes: Buffer, relative: string, pages: string | undefined, signal?: AbortSignal): Promise<PdfText> {
  const turn = queue.then(() => extract(bytes, relative, pages, signal));
  queue = turn.catch(() => undefined);
  return turn;
}

async function extract(bytes: Buffer, relative: string, pages: string | undefined, signal?: AbortSignal): Promise<PdfText> {
  signal?.throwIfAborted();
  const limits = PDF_LIMITS;
  const child = builtin('node:child_process').spawn(
    process.execPath,
    ['--max-old-space-size=256', childScript(), JSON.stringify({ pages, maxRssBytes: limits.maxRssBytes, maxPageChars: limits.maxPageChars })],
    // None of the user's environment: it runs Beans' own code on the file's bytes, and nothing else.
    { stdio: ['pipe', 'pipe', 'pipe'], env: {}, windowsHide: true },
  );
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    // More than twenty pages of cut text and their framing: not an answer this process gives.
    if (stdout.length > limits.maxPageChars * 25) child.kill('SIGKILL');
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4096)));
  child.stdin.on('error', () => undefined);
  child.stdin.end(bytes);
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, limits.timeoutMs);
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('close', (exit, by) => resolve([exit, by]));
    child.on('error', () => resolve([null, null]));
  });
  clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort);
  signal?.throwIfAborted();
  const size = formatBytes(bytes.length);
  if (timedOut)
    throw new ToolInputError(
      `${relative} was not read: extracting its text took longer than ${limits.timeoutMs / 1000} s (the ${size} file decodes into far more than it holds, or its pages are built to be slow); nothing was sent.`,
    );
  if (stderr.includes('beans-pdf: memory limit') || stderr.includes('heap out of memory') || killedBy === 'SIGABRT' || code === 134)
    throw new ToolInputError(
      `${relative} was not read: decoding it needs more than ${formatBytes(limits.maxRssBytes)} of memory (the ${size} file inflates far beyond its size, as a decompression bomb does); nothing was sent.`,
    );
  let answer: Answer;
  try {
    answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Answer;
  } catch {
    throw new ToolInputError(
      `${relative} could not be read as a PDF (its reader stopped${code !== null ? ` with exit code ${code}` : killedBy ? ` by ${killedBy}` : ''}).`,
    );
  }
  if (answer.kind === 'password') throw new ToolInputError(`${relative} is an encrypted PDF (it needs a password); its text cannot be read.`);
  if (answer.kind === 'invalid') throw new ToolInputError(`${relative} is not a readable PDF (${answer.message}).`);
  if (answer.kind === 'pages') throw new ToolInputError(answer.message);
  return answer;
}
