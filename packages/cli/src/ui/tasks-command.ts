import { describeEnd, formatDuration, type BackgroundTaskInfo } from '@beans/core';
import { heading, type Builtin } from './command-kit.js';
import { S, span, truncateLine, wrapText, type StyledLine } from './styled.js';

/** Lines of each task's output `/tasks` shows. */
const LAST_LINES = 3;

function stateText(task: BackgroundTaskInfo, now: number): string {
  const ran = formatDuration((task.endedAt ?? now) - task.startedAt);
  return task.state === 'running' ? `running ${ran}` : `${describeEnd(task)} after ${ran}`;
}

/** The rows `/tasks` prints for each background command: id, state, run time, command, last lines. */
function taskLines(tasks: readonly BackgroundTaskInfo[], width: number, now = Date.now()): StyledLine[] {
  if (tasks.length === 0) return [[span('  No background tasks. The model starts one with shell run_in_background.', S.dim)]];
  const out: StyledLine[] = [];
  for (const task of tasks) {
    out.push(
      truncateLine([span(`  ${task.id} `, S.bold), span(stateText(task, now), task.state === 'running' ? S.green : S.dim), span(`  ${task.command}`)], width),
    );
    for (const line of task.recentLines.slice(-LAST_LINES)) out.push(truncateLine([span(`    │ ${line}`, S.dim)], width));
    if (task.outputFile) out.push(truncateLine([span(`    whole output: ${task.outputFile}`, S.dim)], width));
  }
  return out;
}

/**
 * The rows viewing a task's output prints: its last VIEW_LINES lines (all of them when it printed no
 * more), said so in the heading, and the file holding the whole output when there is one.
 */
export function outputLines(view: { info: BackgroundTaskInfo; lines: string[]; totalLines: number }, width: number): StyledLine[] {
  const { info, lines, totalLines } = view;
  const shown =
    lines.length < totalLines
      ? `the last ${lines.length.toLocaleString('en-US')} of ${totalLines.toLocaleString('en-US')} lines`
      : `${totalLines.toLocaleString('en-US')} line${totalLines === 1 ? '' : 's'}`;
  const out: StyledLine[] = [heading(`Output of ${info.id} (${shown}): ${info.command}`)];
  const indent = { first: [span('  ')], continuation: [span('  ')] };
  if (lines.length === 0) out.push([span('  (no output yet)', S.dim)]);
  else out.push(...wrapText(lines.join('\n'), width, undefined, indent));
  if (info.outputFile) out.push(truncateLine([span(`  whole output: ${info.outputFile}`, S.dim)], width));
  return out;
}

/** `/tasks`: the session's background commands; a picker views one's output or stops a running one. */
export const TASKS_BUILTIN: Builtin = {
  description: "list background tasks (command, state, run time, last lines), view one's output or stop one",
  argumentHint: '[task id to view its output]',
  run(args, { host, width, print, note, openPicker }) {
    const registry = host.backgroundTasks;
    const wanted = args.trim();
    if (wanted) {
      const view = registry?.output(wanted);
      if (!view) return note('error', `There is no task ${wanted}.`);
      return print(outputLines(view, width));
    }
    const tasks = registry?.list() ?? [];
    print([heading('Background tasks'), ...taskLines(tasks, width)]);
    if (!registry || tasks.length === 0) return;
    const running = tasks.filter((task) => task.state === 'running');
    openPicker({
      title: running.length > 0 ? 'Stop a task? Or view its output (Esc leaves them running)' : "View a task's output? (Esc closes)",
      selected: 0,
      action: 'choose',
      items: [
        ...running.map((task) => ({ label: `stop ${task.id}  ${task.command}`, value: `stop ${task.id}` })),
        ...tasks.map((task) => ({ label: `view ${task.id} output  ${task.command}`, value: `view ${task.id}` })),
      ],
      async onSelect(choice) {
        const [action, id = ''] = choice.split(' ');
        if (action === 'view') {
          const view = registry.output(id);
          return view ? print(outputLines(view, width)) : note('error', `There is no task ${id}.`);
        }
        const ended = await registry.kill(id);
        note('info', ended ? `Stopped ${id} (${describeEnd(ended)}).` : `There is no task ${id}.`);
      },
    });
  },
};
