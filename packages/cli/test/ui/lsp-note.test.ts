// Issue 35: in chat, the language server's new problems show under the edit they follow (the diff
// alone would hide them from the user; the model reads them in the result).
import { describe, expect, test } from 'vitest';
import { lineText } from '../../src/ui/styled.js';
import { renderTool, type ToolView } from '../../src/ui/tool-view.js';

const diff = '--- a/src/bad.ts\n+++ b/src/bad.ts\n@@ -1,1 +1,1 @@\n-export const n = 1;\n+export const n: string = 1;\n';
function view(content: string): ToolView {
  return {
    id: 'c1',
    name: 'edit_file',
    summary: 'src/bad.ts',
    kind: 'edit',
    phase: 'ok',
    startedAt: 0,
    output: '',
    result: {
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'edit_file',
      content,
      isError: false,
      status: 'ok',
      details: { kind: 'diff', path: 'src/bad.ts', diff, added: 1, removed: 1 },
      timestamp: 0,
    },
  };
}

describe('an edit with new problems from the language server', () => {
  test('shows them under the diff; an edit without them shows the diff alone', () => {
    const note = "The language server reports new problems after this edit:\nsrc/bad.ts:1:14 error TS2322: Type 'number' is not assignable to type 'string'.";
    const lines = renderTool(view(`Edited src/bad.ts.\n\n${note}`), { width: 120 }).map(lineText);
    const diffEnd = lines.findIndex((line) => line.includes('export const n: string = 1;'));
    const noteAt = lines.findIndex((line) => line.includes('The language server reports new problems after this edit:'));
    expect(diffEnd).toBeGreaterThan(0);
    expect(noteAt).toBeGreaterThan(diffEnd);
    expect(lines[noteAt + 1]).toContain("src/bad.ts:1:14 error TS2322: Type 'number' is not assignable to type 'string'.");
    expect(renderTool(view('Edited src/bad.ts.'), { width: 120 }).map(lineText).join('\n')).not.toContain('language server');
  });
});
