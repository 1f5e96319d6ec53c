import type { RE2JS } from 're2js';

let engine: Promise<typeof RE2JS> | undefined;

/**
 * RE2 (`re2js`): matches in time linear in the text, where JavaScript's backtracking engine can take
 * exponential time on a pattern like `(a+)+$`. For patterns written by someone else (a repository's
 * plugins and agent files). Loaded on first use, into its own chunk of the bundle, so start-up
 * without such patterns never reads it.
 */
export function loadRe2(): Promise<typeof RE2JS> {
  return (engine ??= import('re2js').then((module) => module.RE2JS));
}
