import { open } from 'node:fs/promises';
import { contentText, type ToolResultMessage } from '@beans/core';
import { savedOutputFile } from './tool-summary.js';

/** Most of a saved output Ctrl+O shows (every row is laid out and printed); the rest stays in the file. */
const MAX_EXPANDED_BYTES = 256 * 1024;
const MAX_EXPANDED_LINES = 5000;

/**
 * The whole output of a finished tool for Ctrl+O: the saved file when the model's copy was cut
 * (its beginning), else the result itself.
 */
export async function readExpandedOutput(result: ToolResultMessage | undefined): Promise<{ text: string; note?: string }> {
  const text = result ? contentText(result.content) : '';
  const file = savedOutputFile(result);
  if (!file) return { text };
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const buffer = Buffer.alloc(Math.min(size, MAX_EXPANDED_BYTES));
      await handle.read(buffer, 0, buffer.length, 0);
      let lines = buffer.toString('utf8').split('\n');
      if (size > buffer.length) lines.pop(); // a line cut by the byte limit
      const cut = size > buffer.length || lines.length > MAX_EXPANDED_LINES;
      lines = lines.slice(0, MAX_EXPANDED_LINES);
      const shown = cut ? ` Its first ${lines.length.toLocaleString('en-US')} lines are shown; the rest is in the file.` : '';
      return { text: lines.join('\n'), note: `(whole output from ${file}.${shown})` };
    } finally {
      await handle.close();
    }
  } catch {
    return { text, note: `(the saved output ${file} could not be read; this is what the model saw)` };
  }
}
