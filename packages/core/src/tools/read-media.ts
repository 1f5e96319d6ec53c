import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { ToolInputError } from '../errors.js';
import type { ContentPart } from '../llm/types.js';
import type { WorkspacePath } from '../workspace/paths.js';
import { MAX_PDF_PAGES as PDF_PAGES } from './pdf-pages.js';
import { formatBytes } from './text.js';
import type { ToolResult } from './tool.js';

export type MediaKind = { kind: 'image'; mimeType: string } | { kind: 'pdf' } | { kind: 'notebook' };

/**
 * The largest picture read: each provider client scales what is over its own limits (llm/image-fit.ts)
 * as it sends it, so a 4 K screenshot works everywhere; the session stores the file's bytes.
 */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
export { MAX_PDF_PAGES } from './pdf-pages.js';
const MAX_PDF_BYTES = 50 * 1024 * 1024;
const MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;

/** What a file is, by its first bytes (pictures, PDFs) or its name (notebooks); undefined for the rest. */
export function mediaKindOf(relativePath: string, head: Buffer): MediaKind | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { kind: 'image', mimeType: 'image/png' };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: 'image', mimeType: 'image/jpeg' };
  const ascii = head.toString('latin1', 0, 12);
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return { kind: 'image', mimeType: 'image/gif' };
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return { kind: 'image', mimeType: 'image/webp' };
  if (ascii.startsWith('%PDF-')) return { kind: 'pdf' };
  if (relativePath.toLowerCase().endsWith('.ipynb')) return { kind: 'notebook' };
  return undefined;
}

export async function readMedia(media: MediaKind, handle: FileHandle, target: WorkspacePath, stats: Stats, pages: string | undefined): Promise<ToolResult> {
  if (media.kind === 'image') return { content: await readImage(handle, target, stats, media.mimeType) };
  if (media.kind === 'pdf') return { content: await readPdf(handle, target, stats, pages) };
  return { content: await readNotebook(handle, target, stats) };
}

async function readImage(handle: FileHandle, target: WorkspacePath, stats: Stats, mimeType: string): Promise<ContentPart[]> {
  if (stats.size > MAX_IMAGE_BYTES) {
    throw new ToolInputError(
      `${target.relative} is a ${formatBytes(stats.size)} picture, over the ${formatBytes(MAX_IMAGE_BYTES)} Beans reads as a picture; nothing was sent. Make a smaller copy first (e.g. \`convert ${target.relative} -resize 50% small.png\`) and read that.`,
    );
  }
  const bytes = await handle.readFile();
  const { imageSize } = await import('image-size');
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch (error) {
    throw new ToolInputError(
      `${target.relative} is not a readable ${mimeType.slice(6).toUpperCase()} picture (${(error as Error).message}); nothing was sent.`,
    );
  }
  if (!size.width || !size.height || !completeImage(bytes, mimeType))
    throw new ToolInputError(`${target.relative} is a damaged or cut-off ${mimeType.slice(6).toUpperCase()} picture; nothing was sent.`);
  return [
    { type: 'text', text: `[image: ${target.relative} ${size.width}×${size.height}, ${formatBytes(stats.size)}]` },
    { type: 'image', mimeType, data: bytes.toString('base64') },
  ];
}

/** A file cut off in the middle (a download that stopped) still has a valid header: check its end. */
function completeImage(bytes: Buffer, mimeType: string): boolean {
  const tail = bytes.subarray(Math.max(0, bytes.length - 1024));
  if (mimeType === 'image/png') return tail.includes(Buffer.from('IEND'));
  if (mimeType === 'image/jpeg') return tail.includes(Buffer.from([0xff, 0xd9]));
  if (mimeType === 'image/gif') return tail.includes(0x3b);
  return bytes.readUInt32LE(4) + 8 <= bytes.length;
}

/** The largest PDF kept whole as a document (Anthropic's 32 MB a request, once base64-encoded). */
const MAX_DOCUMENT_BYTES = 24 * 1024 * 1024;

/**
 * The PDF's text page by page; read whole (no `pages`) and small enough, the document itself too, for
 * the providers that read PDFs (its text stays in the part for the others).
 */
async function readPdf(handle: FileHandle, target: WorkspacePath, stats: Stats, pages: string | undefined): Promise<string | ContentPart[]> {
  if (stats.size > MAX_PDF_BYTES)
    throw new ToolInputError(`${target.relative} is ${formatBytes(stats.size)}, over the ${formatBytes(MAX_PDF_BYTES)} PDFs are read to; nothing was read.`);
  const file = await handle.readFile();
  // In a process of its own, bounded in memory and time: a small file can inflate to gigabytes.
  const { extractPdfText } = await import('./pdf-text.js');
  const { totalPages, from, to, pages: chosen } = await extractPdfText(file, target.relative, pages);
  if (chosen.every((page) => page.trim() === '')) {
    throw new ToolInputError(
      `${target.relative} has no text layer on page${from === to ? ` ${from}` : `s ${from}-${to}`} (a scanned document, or only pictures); its text cannot be read.`,
    );
  }
  const body = chosen.map((page, index) => `--- page ${from + index} ---\n${page.trim()}`).join('\n\n');
  const rest =
    to < totalPages ? `\n\n[Pages ${from}-${to} of ${totalPages} shown. Read more with pages: "${to + 1}-${Math.min(totalPages, to + PDF_PAGES)}".]` : '';
  const label = `[PDF: ${target.relative}, ${totalPages} page${totalPages === 1 ? '' : 's'}]`;
  if (pages !== undefined || stats.size > MAX_DOCUMENT_BYTES) return `${label}\n\n${body}${rest}`;
  const document = {
    type: 'document' as const,
    mimeType: 'application/pdf' as const,
    data: file.toString('base64'),
    name: target.relative,
    pages: totalPages,
    text: `${body}${rest}`,
  };
  return [{ type: 'text', text: label }, document];
}

interface NotebookCell {
  cell_type?: string;
  id?: string;
  source?: string | string[];
  outputs?: {
    output_type?: string;
    text?: string | string[];
    data?: Record<string, string | string[]>;
    ename?: string;
    evalue?: string;
    traceback?: string[];
  }[];
}

const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join('') : (value ?? ''));
// Tracebacks carry terminal colours.
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Cells in order with their outputs: text, errors, and pictures as pictures. */
async function readNotebook(handle: FileHandle, target: WorkspacePath, stats: Stats): Promise<string | ContentPart[]> {
  if (stats.size > MAX_NOTEBOOK_BYTES) throw new ToolInputError(`${target.relative} is ${formatBytes(stats.size)}, too large a notebook to read whole.`);
  let cells: NotebookCell[];
  try {
    const parsed = JSON.parse((await handle.readFile()).toString('utf8')) as { cells?: NotebookCell[] };
    if (!Array.isArray(parsed.cells)) throw new Error('it has no "cells" list');
    cells = parsed.cells;
  } catch (error) {
    throw new ToolInputError(`${target.relative} is not a valid Jupyter notebook (${(error as Error).message}).`);
  }
  const parts: ContentPart[] = [];
  let text = `[notebook: ${target.relative}, ${cells.length} cell${cells.length === 1 ? '' : 's'}]\n`;
  const flush = () => {
    if (text) parts.push({ type: 'text', text });
    text = '';
  };
  for (const [index, cell] of cells.entries()) {
    text += `\n--- cell ${index + 1} (${cell.cell_type ?? 'code'}${cell.id ? `, id ${cell.id}` : ''}) ---\n${joined(cell.source)}\n`;
    for (const output of cell.outputs ?? []) {
      if (output.output_type === 'stream') text += `[output]\n${joined(output.text)}\n`;
      else if (output.output_type === 'error')
        text += `[error] ${output.ename ?? 'Error'}: ${output.evalue ?? ''}\n${plain((output.traceback ?? []).join('\n'))}\n`;
      else if (output.data) {
        const picture = Object.keys(output.data).find((type) => type === 'image/png' || type === 'image/jpeg');
        if (picture) {
          text += '[output: image]\n';
          flush();
          parts.push({ type: 'image', mimeType: picture, data: joined(output.data[picture]).replace(/\s/g, '') });
        } else if (output.data['text/plain'] !== undefined) text += `[output]\n${joined(output.data['text/plain'])}\n`;
      }
    }
  }
  flush();
  return parts.some((part) => part.type === 'image') ? parts : parts.map((part) => (part as { text: string }).text).join('');
}
