import type { AgentEvent, AgentMessage } from '@beans/core';
import type { ChatAgent } from '../chat-agent.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

/** What a `task` call's child is doing, as the line under its task shows it. */
export interface TaskProgress {
  agent: string;
  turns: number;
  toolCalls: number;
  /** The call the child runs now (`grep alpha`), if any. */
  current?: string;
  /** Its id, so a permission question about it marks the task as waiting. */
  currentCallId?: string;
}

/** Folds one of the child's events into its progress (a new one for the child's first event). */
export function updateTaskProgress(progress: TaskProgress | undefined, agent: string, event: AgentEvent): TaskProgress {
  const next: TaskProgress = progress ?? { agent, turns: 0, toolCalls: 0 };
  switch (event.type) {
    case 'turn_start':
      next.turns += 1;
      break;
    case 'tool_execution_start':
      next.toolCalls += 1;
      next.current = event.summary && event.summary !== event.call.name ? `${event.call.name} ${event.summary}` : event.call.name;
      next.currentCallId = event.call.id;
      break;
    case 'tool_execution_end':
    case 'agent_end':
      next.current = undefined;
      next.currentCallId = undefined;
      break;
    default:
      break;
  }
  return next;
}

/** The progress line of a stored task call, when the host kept its child's transcript. */
export function taskProgressOf(host: Pick<ChatAgent, 'subagentTranscript'>, toolCallId: string): TaskProgress | undefined {
  const transcript = host.subagentTranscript(toolCallId);
  return transcript ? progressFromTranscript(transcript.agent, transcript.messages) : undefined;
}

/** A finished child's progress from its stored transcript (a resumed session's task lines). */
function progressFromTranscript(agent: string, messages: readonly AgentMessage[]): TaskProgress {
  const answers = messages.filter((message) => message.role === 'assistant');
  return { agent, turns: answers.length, toolCalls: answers.reduce((sum, message) => sum + message.toolCalls.length, 0) };
}

const INDENT = '    ';

/**
 * The child's line under its task: while it runs, its turn and current tool; once done, collapsed
 * to one summary line.
 */
export function renderTaskProgress(progress: TaskProgress, width: number, finished: boolean): StyledLine[] {
  const turns = `${progress.turns} turn${progress.turns === 1 ? '' : 's'}`;
  const calls = `${progress.toolCalls} tool call${progress.toolCalls === 1 ? '' : 's'}`;
  if (finished) return [truncateLine([span(`${INDENT}└ `, S.dim), span(`${progress.agent} · ${turns} · ${calls}`, S.dim)], width)];
  const line: StyledLine = [span(`${INDENT}└ `, S.dim), span(progress.agent, S.bold), span(` · turn ${Math.max(1, progress.turns)}`, S.dim)];
  line.push(span(progress.current ? ` · ${progress.current}` : ' · thinking', progress.current ? S.cyan : S.dim));
  return [truncateLine(line, width)];
}
