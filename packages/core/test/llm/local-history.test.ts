import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/llm/local-history.js';

describe('local model history', () => {
  it('gives a PDF as its extracted text and a picture as a note (the local models read text only)', () => {
    const text = textOf([
      { type: 'text', text: '[document: spec.pdf, 2 pages]' },
      { type: 'document', mimeType: 'application/pdf', data: 'JVBERi0=', name: 'spec.pdf', pages: 2, text: 'Page 1: the API' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0=' },
    ]);
    expect(text).toBe('[document: spec.pdf, 2 pages]\nPage 1: the API\n[an image (image/png) was left out: this local model reads text only]');
  });
});
