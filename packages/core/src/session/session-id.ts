import { randomUuid } from '../random-ids.js';

/**
 * A random UUID (v4), as Claude Code's session ids are: the Claude Agent SDK's `sessionId` and
 * `resume` options take UUIDs, and programs store them as such. Sessions made before Beans 0.1's
 * UUIDs keep their time-stamped ids (`2026-11-22T10-53-04-ab12cd`) and still resume by them;
 * listings sort by last activity, not by id.
 */
export function newSessionId(): string {
  return randomUuid();
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Ids become file names: refuse anything that could point outside the sessions folder. */
export function isSafeSessionId(id: string): boolean {
  return SAFE_ID.test(id) && !id.includes('..');
}
