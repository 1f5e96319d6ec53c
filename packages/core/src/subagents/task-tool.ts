import * as z from 'zod';
import { summaryLine } from '../plugins/summary.js';
import { BUILTIN_PARAMETERS } from '../tools/builtin-parameters.generated.js';
import { BackgroundTaskError } from '../tools/background-tasks.js';
import { defineTool, usePrecomputedParameters, type ToolContext, type ToolResult } from '../tools/tool.js';
import { findSubagent, type SubagentDefinition } from './agents.js';
import { lazily } from '../lazily.js';

export const TASK_TOOL_NAME = 'task';
const DEFAULT_MAX_PARALLEL = 4;

/** What one child run produced. */
export interface SubagentOutcome {
  /** The child's final answer; empty when it stopped without one. */
  finalText: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Why the child stopped when it did not complete (`max_turns`, `error`, `aborted`...). */
  stopReason: string;
  /** A provider failure or similar, in a sentence. */
  error?: string;
}

export type RunSubagent = (agent: SubagentDefinition, prompt: string, context: ToolContext) => Promise<SubagentOutcome>;

export interface TaskToolOptions {
  agents: readonly SubagentDefinition[];
  run: RunSubagent;
  /** Children running at once across the session (setting `agents.maxParallel`). */
  maxParallel?: number;
}

const taskInput = lazily(() =>
  z.object({
    description: z.string().describe('3-5 words'),
    prompt: z.string().min(1),
    subagent_type: z.string().min(1),
    run_in_background: z.boolean().optional(),
  }),
);
usePrecomputedParameters(taskInput, BUILTIN_PARAMETERS[TASK_TOOL_NAME]);

/**
 * Claude Code's `Task`: the model hands a focused job to another agent with its own prompt, tools
 * and model, and gets its answer back. Several calls in one turn run at once, up to `maxParallel`.
 */
export function createTaskTool(options: TaskToolOptions) {
  const limit = limiter(Math.max(1, options.maxParallel ?? DEFAULT_MAX_PARALLEL));
  const names = options.agents.map((agent) => agent.name);
  return defineTool({
    name: TASK_TOOL_NAME,
    description: taskDescription(options.agents),
    // Delegation itself touches nothing; each call the child makes is checked on its own.
    kind: 'meta',
    schema: taskInput,
    summarize: (input) => `${input.subagent_type}: ${input.description}`,
    async execute(input, context) {
      const agent = findSubagent(options.agents, input.subagent_type);
      if (!agent) return { content: `There is no agent "${input.subagent_type}". Available agents: ${names.join(', ')}.`, isError: true };
      const runChild = async (childContext: ToolContext): Promise<ToolResult> => {
        let outcome: SubagentOutcome;
        try {
          outcome = await limit(() => options.run(agent, input.prompt, childContext), childContext.signal);
        } catch (error) {
          if (childContext.signal.aborted) return { content: `The ${agent.name} agent was interrupted.`, isError: true };
          return { content: `The ${agent.name} agent failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
        }
        return describeOutcome(agent, outcome);
      };
      if (input.run_in_background) return startInBackground(`${agent.name}: ${input.description}`, context, runChild);
      return runChild(context);
    },
  });
}

/**
 * Claude Code's background agents: the child runs as a background task of the session (its own
 * signal, so the parent's turn ending or being interrupted does not stop it); its answer is the
 * task's output, read with shell_output (TaskOutput) and stopped with kill_shell (TaskStop), and its
 * end is told to the parent as a background command's is. Its events are not forwarded into the
 * parent's turn, which may be over; its messages are still recorded under the task call.
 */
function startInBackground(label: string, context: ToolContext, runChild: (context: ToolContext) => Promise<ToolResult>): ToolResult {
  const tasks = context.backgroundTasks;
  if (!tasks) return { content: 'Background agents are not available in this session: run it without run_in_background.', isError: true };
  try {
    const task = tasks.startWork(label, async (signal) => {
      const result = await runChild({ ...context, signal, emit: undefined });
      return { exitCode: result.isError ? 1 : 0, output: `${typeof result.content === 'string' ? result.content : JSON.stringify(result.content)}\n` };
    });
    return {
      content: `Started the agent in the background as task ${task.id}. Read its answer with shell_output (task_id "${task.id}"; wait_ms waits for it to finish), stop it with kill_shell. You will be told when it finishes.`,
    };
  } catch (error) {
    if (error instanceof BackgroundTaskError) return { content: error.message, isError: true };
    throw error;
  }
}

function describeOutcome(agent: SubagentDefinition, outcome: SubagentOutcome): ToolResult {
  const footer = `[${agent.name}: ${outcome.turns} turn${outcome.turns === 1 ? '' : 's'}, ${outcome.inputTokens} input and ${outcome.outputTokens} output tokens]`;
  if (outcome.stopReason === 'completed') return { content: `${outcome.finalText.trim() || '(The agent gave no answer.)'}\n\n${footer}` };
  const why = outcome.error ?? `it stopped (${outcome.stopReason})`;
  const partial = outcome.finalText.trim() ? `\nIts last answer:\n${outcome.finalText.trim()}` : '';
  return { content: `The ${agent.name} agent did not finish: ${why}.${partial}\n\n${footer}`, isError: true };
}

// Every request carries this list: an agent's first sentence (at most a short line) is enough to choose one.
const AGENT_LINE = 80;

function taskDescription(agents: readonly SubagentDefinition[]): string {
  return [
    'Runs a self-contained job in an agent that sees only your prompt (include all it needs and what to report) and returns one answer, to you, not the user.',
    'Calls in one turn run in parallel; run_in_background returns a task id at once (then shell_output, kill_shell).',
    'Agents:',
    ...agents.map((agent) => `- ${agent.name}: ${agentSummary(agent.description)}`),
  ].join('\n');
}

/** The description's first sentence, cut to AGENT_LINE characters. */
function agentSummary(description: string): string {
  const flat = summaryLine(description, Number.POSITIVE_INFINITY);
  // A sentence ends at . ! or ? before a capital letter (so "e.g. a" goes on).
  const end = flat.search(/[.!?](?=\s+\p{Lu})/u);
  return summaryLine(end === -1 ? flat : flat.slice(0, end + 1), AGENT_LINE);
}

/** Runs at most `max` jobs at once; a job still waiting when its signal aborts never starts. */
function limiter(max: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(job: () => Promise<T>, signal: AbortSignal): Promise<T> => {
    while (running >= max) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          waiting.splice(waiting.indexOf(wake), 1);
          reject(new Error('interrupted'));
        };
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        waiting.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    if (signal.aborted) throw new Error('interrupted');
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
