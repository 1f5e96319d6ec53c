import { describe, expect, it } from 'vitest';
import { summaryLine } from '../../src/plugins/index.js';

describe('summaryLine', () => {
  it('never shows <example> blocks: one line up to the first example', () => {
    const description = 'Use this agent when the user asks for a review. Examples:\n\n<example>\nContext: x\nuser: "review"\nassistant: "ok"\n</example>';
    expect(summaryLine(description)).toBe('Use this agent when the user asks for a review.');
  });

  it('folds whitespace and cuts a long line at a word', () => {
    const line = summaryLine(`Reviews\ncode ${'carefully '.repeat(40)}`, 40);
    expect(line).toBe('Reviews code carefully carefully…');
    expect(line.length).toBeLessThanOrEqual(40);
  });
});
