import { describe, expect, test } from 'vitest';
import { renderStatus } from '../../src/ui/status-line.js';
import { lineText } from '../../src/ui/styled.js';

const info = { model: 'm', inputTokens: 1200, outputTokens: 30, queued: 0, hint: '/help for commands', branch: 'feature/x' };

describe('the git branch in the footer', () => {
  test('sits on the right before the hint when there is room', () => {
    const row = lineText(renderStatus(info, 80));
    expect(row).toMatch(/^m · ↑1\.2k ↓30 +⎇ feature\/x · \/help for commands$/);
    expect(row).toHaveLength(80);
  });

  test('goes first when the row is full: the hint and the numbers stay', () => {
    const row = lineText(renderStatus(info, 40));
    expect(row).not.toContain('feature/x');
    expect(row).toMatch(/^m · ↑1\.2k ↓30 +\/help for commands$/);
  });

  test('without a branch (outside a repository) the row is as before', () => {
    expect(lineText(renderStatus({ ...info, branch: undefined }, 40))).toMatch(/^m · ↑1\.2k ↓30 +\/help for commands$/);
  });
});
