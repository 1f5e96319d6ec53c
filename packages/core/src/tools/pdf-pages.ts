import { ToolInputError } from '../errors.js';

/** Claude Code reads at most 20 pages of a PDF per call. */
export const MAX_PDF_PAGES = 20;

/** `pages` as Claude Code's Read takes it: "3" or "1-5", 1-based. */
export function pageRange(pages: string | undefined, total: number): { from: number; to: number } {
  if (pages === undefined) return { from: 1, to: Math.min(total, MAX_PDF_PAGES) };
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  if (!match) throw new ToolInputError(`pages "${pages}" is not a page or a range; write it as "3" or "1-5".`);
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (from < 1 || to < from) throw new ToolInputError(`pages "${pages}" is not a range of pages (they count from 1, e.g. "1-5").`);
  if (from > total) throw new ToolInputError(`pages "${pages}" starts past the end: the PDF has ${total} page${total === 1 ? '' : 's'}.`);
  if (to - from + 1 > MAX_PDF_PAGES) throw new ToolInputError(`pages "${pages}" is ${to - from + 1} pages; read at most ${MAX_PDF_PAGES} at a time.`);
  return { from, to: Math.min(to, total) };
}
