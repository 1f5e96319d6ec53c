import * as z from 'zod';
import { summaryLine } from '../plugins/summary.js';
import { BUILTIN_PARAMETERS } from '../tools/builtin-parameters.generated.js';
import { defineTool, usePrecomputedParameters, type ToolContext } from '../tools/tool.js';
import { findSubagent, type SubagentDefinition } from './agents.js';
import { lazily } from '../lazily.js';

export const TASK_TOOL_NAME = 'task';
export const DEFAULT_MAX_PARALLEL = 4;

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
    prompt: z.string().min(1).describe('The whole task: the agent sees nothing else'),
    subagent_type: z.string().min(1).describe('An agent listed above'),
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
      let outcome: SubagentOutcome;
      try {
        outcome = await limit(() => options.run(agent, input.prompt, context), context.signal);
      } catch (error) {
        if (context.signal.aborted) return { content: `The ${agent.name} agent was interrupted.`, isError: true };
        return { content: `The ${agent.name} agent failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
      }
      const footer = `[${agent.name}: ${outcome.turns} turn${outcome.turns === 1 ? '' : 's'}, ${outcome.inputTokens} input and ${outcome.outputTokens} output tokens]`;
      if (outcome.stopReason === 'completed') return { content: `${outcome.finalText.trim() || '(The agent gave no answer.)'}\n\n${footer}` };
      const why = outcome.error ?? `it stopped (${outcome.stopReason})`;
      const partial = outcome.finalText.trim() ? `\nIts last answer:\n${outcome.finalText.trim()}` : '';
      return { content: `The ${agent.name} agent did not finish: ${why}.${partial}\n\n${footer}`, isError: true };
    },
  });
}

// Every request carries this list: a short line per agent is enough to choose one.
const AGENT_LINE = 80;

function taskDescription(agents: readonly SubagentDefinition[]): string {
  return [
    'Delegates a self-contained job to an agent that works alone and returns one answer; several calls in one turn run in parallel.',
    'The agent sees only your prompt: give it everything it needs and say what to report.',
    'Agents (subagent_type):',
    ...agents.map((agent) => `- ${agent.name}: ${summaryLine(agent.description, AGENT_LINE)}`),
  ].join('\n');
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
