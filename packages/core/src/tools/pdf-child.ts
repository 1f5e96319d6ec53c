// A PDF's text, extracted in a process of its own (pdf-text.ts starts it with `node pdf-child.js`).
// A 400 KB PDF can hold a stream that inflates to gigabytes, and PDF.js decodes a page's streams
// whole in memory: in Beans' own process one such read took 1.4 GB and ten seconds (issue 53 item 4).
// Here a watchdog thread ends the process the moment it holds more than it may, and the parent ends
// it when it runs too long; Beans itself never holds more than the file.
//
// stdin: the PDF's bytes. argv[2]: JSON { pages?: string, maxRssBytes: number, maxPageChars: number }.
// stdout: one JSON line, PdfChildAnswer (pdf-text.ts).
import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ToolInputError } from '../errors.js';
import { pageRange } from './pdf-pages.js';

interface ChildOptions {
  pages?: string;
  maxRssBytes: number;
  maxPageChars: number;
}

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setInterval(() => {
  if (process.memoryUsage.rss() > workerData.limit) {
    writeSync(2, 'beans-pdf: memory limit\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, 5);
`;

const options = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;
new Worker(WATCHDOG, { eval: true, workerData: { limit: options.maxRssBytes } }).unref();

const answer = (value: unknown) => {
  writeSync(1, `${JSON.stringify(value)}\n`);
  process.exit(0);
};

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const bytes = new Uint8Array(Buffer.concat(chunks));

const { getDocumentProxy } = await import('unpdf');
let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
try {
  pdf = await getDocumentProxy(bytes);
} catch (error) {
  const name = (error as { name?: string }).name;
  answer(name === 'PasswordException' ? { kind: 'password' } : { kind: 'invalid', message: (error as Error).message });
  throw error;
}
let range: { from: number; to: number };
try {
  range = pageRange(options.pages, pdf.numPages);
} catch (error) {
  if (!(error instanceof ToolInputError)) throw error;
  answer({ kind: 'pages', message: error.message });
  throw error;
}
const pages: string[] = [];
for (let number = range.from; number <= range.to; number += 1) {
  const content = await (await pdf.getPage(number)).getTextContent();
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str + (item.hasEOL ? '\n' : '');
    if (text.length > options.maxPageChars) break;
  }
  pages.push(text.length > options.maxPageChars ? `${text.slice(0, options.maxPageChars)}\n[... page cut at ${options.maxPageChars} characters]` : text);
}
answer({ kind: 'text', totalPages: pdf.numPages, from: range.from, to: range.to, pages });
