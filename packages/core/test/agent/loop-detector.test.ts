import { describe, expect, it } from 'vitest';
import { LoopDetector } from '../../src/agent/loop-detector.js';
import type { ToolResultMessage } from '../../src/agent/types.js';
import type { ToolCall } from '../../src/llm/types.js';

const call = (name: string, args: Record<string, unknown>, id = 'x'): ToolCall => ({ id, name, arguments: args });
const result = (content: string): ToolResultMessage => ({ role: 'tool', toolCallId: 'x', toolName: 't', content, isError: false, status: 'ok', timestamp: 0 });

describe('loop detection', () => {
  it('stops the same call with the same arguments at the fifth turn in a row (argument order does not matter)', () => {
    const detector = new LoopDetector();
    const verdicts = [1, 2, 3, 4, 5].map((i) =>
      detector.record('', [call('read_file', i % 2 ? { path: 'a', limit: 5 } : { limit: 5, path: 'a' })], [result(`r${i}`)]),
    );
    expect(verdicts.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(verdicts[4]).toMatch(/same tool call \(read_file .*\) 5 times in a row/);
  });

  it('does not flag a command repeated after an edit (npm test, edit, npm test ...)', () => {
    const detector = new LoopDetector();
    for (let i = 0; i < 10; i++) {
      expect(detector.record('', [call('shell', { command: 'npm test' })], [result('1 failing')])).toBeUndefined();
      expect(detector.record('', [call('edit_file', { path: 'a.ts', old_string: `v${i}`, new_string: `v${i + 1}` })], [result('ok')])).toBeUndefined();
    }
  });

  it('stops the same answer text repeated turn after turn', () => {
    const detector = new LoopDetector({ maxRepeats: 3 });
    const verdicts = [1, 2, 3].map((i) => detector.record('Let me check the file again.', [call('grep', { pattern: `p${i}` })], [result('none')]));
    expect(verdicts[2]).toMatch(/same answer text 3 times/);
  });

  it('stops two calls alternating with unchanged results, but not when the results change', () => {
    const stuck = new LoopDetector({ maxRepeats: 3 });
    const changing = new LoopDetector({ maxRepeats: 3 });
    let stuckVerdict: string | undefined;
    let changingVerdict: string | undefined;
    for (let i = 0; i < 6 && !stuckVerdict; i++) {
      const calls = [i % 2 ? call('read_file', { path: 'a' }) : call('list_directory', {})];
      stuckVerdict = stuck.record('', calls, [result(i % 2 ? 'file a' : 'a b')]);
      changingVerdict ??= changing.record('', calls, [result(`listing ${i}`)]);
    }
    expect(stuckVerdict).toMatch(/alternating 3 times with the same results/);
    expect(changingVerdict).toBeUndefined();
  });

  it('keeps only the turns it compares, however long the run (bench/long-session.mjs found it holding every result)', () => {
    const detector = new LoopDetector();
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 1000; i++) detector.record(`step ${i}`, [call('read_file', { path: 'a', offset: i })], [result(`${i}${big}`)]);
    const held = detector as unknown as { calls: string[]; outcomes: string[]; texts: string[] };
    expect(held.calls.length + held.outcomes.length + held.texts.length).toBeLessThanOrEqual(3 * 2 * 5);
    // Still detects a loop that starts late in the run.
    const verdicts = [1, 2, 3, 4, 5].map(() => detector.record('', [call('read_file', { path: 'b' })], [result('same')]));
    expect(verdicts[4]).toMatch(/5 times in a row/);
  });
});
