// Issue 41: read_file shows pictures as pictures, PDFs as their text by page, notebooks as cells with
// their outputs, and refuses broken or oversized input with a clear message.
import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/tools/read-file.js';
import type { ContentPart } from '../../src/llm/types.js';
import { makeNotebook, makePdf, makePng } from '../../../../test/support/media.ts';
import { makeContext, makeWorkspace, run } from './helpers.js';

const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

describe('read_file on pictures, PDFs and notebooks', () => {
  it('returns a PNG byte for byte as an image part, with its size in words', async () => {
    const png = makePng(64, 48);
    const ws = makeWorkspace({ 'shot.png': png, 'dot.gif': GIF_1X1 });
    const result = await run(readFileTool, { path: 'shot.png' }, makeContext(ws));
    expect(result.isError).toBeFalsy();
    const parts = result.content as ContentPart[];
    expect(parts[0]).toEqual({ type: 'text', text: expect.stringMatching(/^\[image: shot\.png 64×48, [\d.]+ (B|KB)\]$/) });
    expect(parts[1]).toEqual({ type: 'image', mimeType: 'image/png', data: png.toString('base64') });
    const gif = (await run(readFileTool, { path: 'dot.gif' }, makeContext(ws))).content as ContentPart[];
    expect(gif[1]).toMatchObject({ type: 'image', mimeType: 'image/gif' });
  });

  it('refuses a truncated picture, a corrupt one and one over the 20 MB Beans reads; an SVG is text', async () => {
    const png = makePng(32, 32);
    const big = Buffer.concat([png.subarray(0, 33), Buffer.alloc(21 * 1024 * 1024), png.subarray(33)]);
    const ws = makeWorkspace({
      'cut.png': png.subarray(0, png.length - 20),
      'bad.png': Buffer.concat([png.subarray(0, 8), Buffer.from('garbage garbage garbage')]),
      'big.png': big,
      'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>\n',
    });
    const cut = await run(readFileTool, { path: 'cut.png' }, makeContext(ws));
    expect(cut).toMatchObject({ isError: true, content: expect.stringContaining('damaged or cut-off PNG') });
    const bad = await run(readFileTool, { path: 'bad.png' }, makeContext(ws));
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/not a readable PNG|damaged/);
    const large = await run(readFileTool, { path: 'big.png' }, makeContext(ws));
    expect(large).toMatchObject({ isError: true, content: expect.stringContaining('nothing was sent') });
    const svg = await run(readFileTool, { path: 'logo.svg' }, makeContext(ws));
    expect(svg.content).toContain('1\t<svg');
  });

  it('reads a PDF with compressed content streams page by page, with pages: "2-3"', async () => {
    const ws = makeWorkspace({ 'docs/spec.pdf': makePdf(['Alpha page one', 'Beta page two', 'Gamma page three']) });
    const all = await run(readFileTool, { path: 'docs/spec.pdf' }, makeContext(ws));
    expect(all.isError).toBeFalsy();
    // Read whole: a label, then the document itself with its text for providers that read no PDFs.
    const [label, document] = all.content as ContentPart[];
    expect(label).toEqual({ type: 'text', text: '[PDF: docs/spec.pdf, 3 pages]' });
    expect(document).toMatchObject({
      type: 'document',
      mimeType: 'application/pdf',
      name: 'docs/spec.pdf',
      pages: 3,
      data: makePdf(['Alpha page one', 'Beta page two', 'Gamma page three']).toString('base64'),
    });
    expect((document as { text: string }).text).toMatch(/--- page 1 ---\nAlpha page one[\s\S]*--- page 3 ---\nGamma page three/);
    const some = await run(readFileTool, { path: 'docs/spec.pdf', pages: '2-3' }, makeContext(ws));
    expect(some.content).not.toContain('Alpha');
    expect(some.content).toContain('Beta page two');
    expect((await run(readFileTool, { path: 'docs/spec.pdf', pages: '9' }, makeContext(ws))).content).toContain('the PDF has 3 pages');
  });

  it('refuses a broken PDF, and a PDF with no text layer, saying which', async () => {
    const ws = makeWorkspace({ 'broken.pdf': Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('nothing else here')]), 'blank.pdf': makePdf(['']) });
    expect((await run(readFileTool, { path: 'broken.pdf' }, makeContext(ws))).isError).toBe(true);
    expect((await run(readFileTool, { path: 'blank.pdf' }, makeContext(ws))).content).toContain('has no text layer');
  });

  it('reads a notebook as cells in order with text, error and picture outputs', async () => {
    const picture = makePng(8, 8);
    const ws = makeWorkspace({ 'analysis.ipynb': makeNotebook(picture) });
    const result = await run(readFileTool, { path: 'analysis.ipynb' }, makeContext(ws));
    const parts = result.content as ContentPart[];
    const text = parts
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('');
    expect(text).toMatch(
      /cell 1 \(markdown, id intro\)[\s\S]*# Analysis[\s\S]*cell 2 \(code, id load\)[\s\S]*rows: 42[\s\S]*cell 3[\s\S]*\[error\] ZeroDivisionError: division by zero/,
    );
    expect(text).not.toContain('\u001b[');
    expect(parts).toContainEqual({ type: 'image', mimeType: 'image/png', data: picture.toString('base64') });
  });
});
