import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import type { ToolDetails } from './tool.js';

export type DiffDetails = Extract<ToolDetails, { kind: 'diff' }>;

/** A unified diff of one file for the UI (and confirmation prompts), with line counts. */
export function diffDetails(relativePath: string, before: string, after: string): DiffDetails {
  // CRs would move the terminal cursor when the UI prints the diff; line endings are kept on disk.
  const patch = structuredPatch(`a/${relativePath}`, `b/${relativePath}`, before, after, undefined, undefined, { context: 3, stripTrailingCr: true });
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { kind: 'diff', path: relativePath, diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed };
}
