import { randomHex } from '../random-ids.js';

/**
 * `2026-11-22T10-53-04-ab12cd`: UTC start time then 6 random hex digits. Ids sort by start time as
 * plain strings, read well in listings, and are safe as file names everywhere.
 */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/:/g, '-');
  return `${stamp}-${randomHex(3)}`;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Ids become file names: refuse anything that could point outside the sessions folder. */
export function isSafeSessionId(id: string): boolean {
  return SAFE_ID.test(id) && !id.includes('..');
}
