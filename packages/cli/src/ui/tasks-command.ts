import { describeEnd, formatDuration, type BackgroundTaskInfo } from '@beans/core';
import { heading, type Builtin } from './command-kit.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

/** Lines of each task's output `/tasks` shows. */
const LAST_LINES = 3;

function stateText(task: BackgroundTaskInfo, now: number): string {
  const ran = formatDuration((task.endedAt ?? now) - task.startedAt);
  return task.state === 'running' ? `running ${ran}` : `${describeEnd(task)} after ${ran}`;
}

/** The rows `/tasks` prints for each background command: id, state, run time, command, last lines. */
export function taskLines(tasks: readonly BackgroundTaskInfo[], width: number, now = Date.now()): StyledLine[] {
  if (tasks.length === 0) return [[span('  No background tasks. The model starts one with shell run_in_background.', S.dim)]];
  const out: StyledLine[] = [];
  for (const task of tasks) {
    out.push(truncateLine([span(`  ${task.id} `, S.bold), span(stateText(task, now), task.state === 'running' ? S.green : S.dim), span(`  ${task.command}`)], width));
    for (const line of task.recentLines.slice(-LAST_LINES)) out.push(truncateLine([span(`    │ ${line}`, S.dim)], width));
    if (task.outputFile) out.push(truncateLine([span(`    whole output: ${task.outputFile}`, S.dim)], width));
  }
  return out;
}

/** `/tasks`: the session's background commands; a picker stops a running one. */
export const TASKS_BUILTIN: Builtin = {
  description: 'list background tasks (command, state, run time, last lines) and stop one',
  run(_args, { host, width, print, note, openPicker }) {
    const registry = host.backgroundTasks;
    const tasks = registry?.list() ?? [];
    print([heading('Background tasks'), ...taskLines(tasks, width)]);
    const running = tasks.filter((task) => task.state === 'running');
    if (!registry || running.length === 0) return;
    openPicker({
      title: 'Stop a task? (Esc leaves them running)',
      selected: 0,
      action: 'stop',
      items: running.map((task) => ({ label: `${task.id}  ${task.command}`, value: task.id })),
      async onSelect(id) {
        const ended = await registry.kill(id);
        note('info', ended ? `Stopped ${id} (${describeEnd(ended)}).` : `There is no task ${id}.`);
      },
    });
  },
};
