import { readFileSync } from 'node:fs';
import type { ScheduledTask } from '../tools/schedule-board.js';

// SessionWriter writes `type` then `kind` first, so the newest schedules line is found by its prefix
// without parsing the rest of a long session.
const SCHEDULES_META = Buffer.from('\n{"type":"meta","kind":"schedules"');

/** The tasks of the newest `schedules` line of a session file ([] when it has none or cannot be read). */
export function storedSchedules(file: string): ScheduledTask[] {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch {
    return [];
  }
  const start = buffer.lastIndexOf(SCHEDULES_META);
  if (start === -1) return [];
  const end = buffer.indexOf(10, start + 1);
  try {
    const record = JSON.parse(buffer.toString('utf8', start + 1, end === -1 ? buffer.length : end)) as { tasks?: unknown };
    return Array.isArray(record.tasks)
      ? (record.tasks as ScheduledTask[]).filter((task) => typeof task?.id === 'string' && typeof task.prompt === 'string')
      : [];
  } catch {
    return [];
  }
}
