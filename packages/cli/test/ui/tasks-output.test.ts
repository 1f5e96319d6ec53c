import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackgroundTasks } from '@beans/core';
import { afterEach, describe, expect, it } from 'vitest';
import { outputLines } from '../../src/ui/tasks-command.js';
import { lineText } from '../../src/ui/styled.js';

// /tasks "view output": the last 200 lines a task printed, or all of them when it printed fewer.

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function finished(command: string) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'beans-tasks-view-'));
  folders.push(root);
  const tasks = new BackgroundTasks();
  const task = await tasks.start(command, { workspace: { root }, env: process.env }, { label: command });
  for (let i = 0; i < 250 && tasks.get(task.id)?.state === 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return tasks.output(task.id)!;
}

describe('/tasks view output', () => {
  it('shows the last 200 of many lines and says so', async () => {
    const rows = outputLines(await finished('seq 1 1000'), 80).map(lineText);
    expect(rows[0]).toContain('Output of bg-1 (the last 200 of 1,000 lines): seq 1 1000');
    expect(rows.slice(1)).toHaveLength(200);
    expect(rows[1]).toBe('  801');
    expect(rows.at(-1)).toBe('  1000');
  });

  it('shows a short output whole, long lines wrapped rather than cut', async () => {
    const rows = outputLines(await finished(`echo first; printf 'x%.0s' $(seq 1 150); echo`), 80).map(lineText);
    expect(rows[0]).toContain('Output of bg-1 (2 lines)');
    expect(rows[1]).toBe('  first');
    expect(rows.slice(2).join('').replace(/\s/g, '')).toBe('x'.repeat(150));
  });
});
