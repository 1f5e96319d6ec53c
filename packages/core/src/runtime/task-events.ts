import { describeEnd, type BackgroundTaskInfo, type BackgroundTasks } from '../tools/background-tasks.js';
import type { SdkTaskNotificationMessage, SdkTaskStartedMessage } from './sdk-types.js';
import { randomUuid } from '../random-ids.js';

export type SdkTaskMessage = SdkTaskStartedMessage | SdkTaskNotificationMessage;

/**
 * Claude Code's task events for SDK programs (the SDK protocol and `query()`): `task_started` when
 * a background command or subagent starts, `task_notification` when it ends. Returns the unsubscribe.
 */
export function watchBackgroundTasks(tasks: BackgroundTasks, sessionId: () => string, emit: (message: SdkTaskMessage) => void): () => void {
  const told = new Map<string, 'started' | 'ended'>();
  const envelope = () => ({ uuid: randomUuid(), session_id: sessionId() });
  return tasks.subscribe(() => {
    for (const info of tasks.list()) {
      if (!told.has(info.id)) {
        told.set(info.id, 'started');
        emit({
          type: 'system',
          subtype: 'task_started',
          task_id: info.id,
          description: info.command,
          task_type: info.kind === 'agent' ? 'local_agent' : 'local_bash',
          is_backgrounded: true,
          ...envelope(),
        });
      }
      if (info.state !== 'running' && told.get(info.id) === 'started') {
        told.set(info.id, 'ended');
        emit({
          type: 'system',
          subtype: 'task_notification',
          task_id: info.id,
          status: statusOf(info),
          output_file: info.outputFile ?? '',
          summary: `${info.command} ${describeEnd(info)}`,
          ...envelope(),
        });
      }
    }
  });
}

function statusOf(info: BackgroundTaskInfo): SdkTaskNotificationMessage['status'] {
  if (info.state === 'killed') return 'stopped';
  return info.exitCode === 0 ? 'completed' : 'failed';
}
