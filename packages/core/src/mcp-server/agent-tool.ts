import { statSync } from 'node:fs';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { PermissionMode } from '../permissions/types.js';
import { createAgentSession, type AgentSession } from '../runtime/agent-session.js';
import type { TurnOutcome } from '../runtime/run-turn.js';
import type { AgentSessionOptions } from '../runtime/session-options.js';
import type { SubmitOutcome } from '../runtime/submit.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { refusal } from './served-tools.js';
import { sessionUri } from './session-resources.js';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const agentInput = z
  .object({
    prompt: z.string().min(1).describe('The task or question, as you would type it to Beans (slash commands such as /review work too).'),
    cwd: z.string().optional().describe("The folder to work in: relative to the served workspace or absolute inside it (default: the workspace's root)."),
    session_id: z.string().optional().describe('Continue this earlier Beans session (the id an earlier agent call returned) instead of starting a new one.'),
  })
  .strict();

type AgentInput = z.infer<typeof agentInput>;

export interface AgentToolOptions {
  /** How each run's session is made: the command line's options (provider, model, mode, plugins, trust...). */
  session: AgentSessionOptions;
  /** The served workspace: `cwd` must stay inside it. */
  workspaceRoot: string;
  permissionMode: PermissionMode;
  /** Whether a run may change files or run commands that change things unasked (its mode, or an allow rule in force). */
  mayChange: boolean;
  /** Where a session's warnings go (stderr). */
  warn(text: string): void;
  /** A run made or appended to a session file (a new resource). */
  onSessionWritten?(): void;
}

/** The `agent` tool as `tools/list` describes it. */
export function agentTool(options: Pick<AgentToolOptions, 'permissionMode' | 'mayChange'>): McpTool {
  return {
    name: 'agent',
    description:
      "Runs a whole Beans session on a prompt and returns its final answer: Beans' own provider and model, plugins, skills, subagents and MCP servers, " +
      `in its permission mode (${options.permissionMode}; calls the mode would ask about are refused). ` +
      'Use it to delegate a task to another model: a cheap local one for searches, a strong one for hard edits. ' +
      'The answer is followed by the session id, which session_id takes to continue the same conversation.',
    inputSchema: { ...z.toJSONSchema(agentInput), type: 'object' } as McpTool['inputSchema'],
    annotations: {
      title: 'Run a Beans agent',
      readOnlyHint: false,
      destructiveHint: options.mayChange,
      idempotentHint: false,
      openWorldHint: true,
    },
  };
}

/**
 * Runs one `agent` call: a session made by createAgentSession exactly as `beans -p` makes one (trust,
 * settings, permissions, plugins), one turn on the prompt with progress notifications while it runs,
 * and the client's cancellation aborting it (the session file keeps what happened and resumes).
 */
export async function runAgentTool(args: unknown, extra: RequestExtra, options: AgentToolOptions): Promise<CallToolResult> {
  const parsed = agentInput.safeParse(args ?? {});
  if (!parsed.success) return refusal(`Invalid arguments for agent: ${z.prettifyError(parsed.error)}`);
  const cwd = workFolder(parsed.data, options.workspaceRoot);
  if ('error' in cwd) return refusal(cwd.error);
  let agent: AgentSession;
  try {
    agent = await createAgentSession({
      ...options.session,
      cwd: cwd.path,
      resume: parsed.data.session_id,
      continue: false,
      sessionId: undefined,
      interactive: false,
    });
  } catch (error) {
    return refusal(`Beans could not start the session: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const warning of agent.warnings) options.warn(warning);
  const stopProgress = reportProgress(agent, extra);
  try {
    const outcome = await runPrompt(agent, parsed.data.prompt, extra.signal);
    const sessionId = agent.store ? agent.session.id : undefined;
    if (outcome.kind === 'turn') return answerOf(outcome.turn, sessionId);
    if (outcome.kind === 'command') return { content: [{ type: 'text', text: outcome.text }] };
    if (outcome.kind === 'refused') return refusal(`Beans refused the prompt: ${outcome.reason}`);
    if (outcome.kind === 'stopped') return refusal('Interrupted.');
    // A program's words are never `!` lines or `#` notes, and a new session runs no turn to steer.
    return refusal(`Beans did not run the prompt (${outcome.kind}).`);
  } finally {
    stopProgress();
    await agent.end();
    await agent.close();
    options.onSessionWritten?.();
  }
}

/**
 * The prompt goes in as any front end's does (core's submit path, issue 52): slash commands, skills
 * and `@file` references work; it comes from a program, so `!` and `#` are words for the model.
 */
function runPrompt(agent: AgentSession, prompt: string, signal: AbortSignal): Promise<SubmitOutcome> {
  return agent.submit({ text: prompt, signal });
}

function workFolder(input: AgentInput, workspaceRoot: string): { path: string } | { error: string } {
  if (input.cwd === undefined) return { path: workspaceRoot };
  let absolute: string;
  try {
    absolute = resolveInWorkspace({ root: workspaceRoot }, input.cwd).absolute;
  } catch (error) {
    return { error: `cwd: ${error instanceof Error ? error.message : String(error)}` };
  }
  const isFolder = (() => {
    try {
      return statSync(absolute).isDirectory();
    } catch {
      return false;
    }
  })();
  return isFolder ? { path: absolute } : { error: `cwd: ${input.cwd} is not a folder of the workspace.` };
}

/**
 * `notifications/progress` while the session works, when the client asked for them (a progress
 * token): one when it starts, one per tool call, one per provider retry. Sending never fails the run.
 */
function reportProgress(agent: AgentSession, extra: RequestExtra): () => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  const send = (message: string) => {
    progress += 1;
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  };
  send(`Beans is working (${agent.providerId}, ${agent.session.model})`);
  return agent.session.subscribe((event) => {
    if (event.type === 'tool_execution_start')
      send(event.summary && event.summary !== event.call.name ? `${event.call.name}: ${event.summary}` : event.call.name);
    else if (event.type === 'retry') send(`${agent.providerId} failed (${event.failure.message}); retrying in ${Math.round(event.delayMs / 100) / 10} s`);
  });
}

function answerOf(outcome: TurnOutcome, sessionId: string | undefined): CallToolResult {
  const { result } = outcome;
  const failure = outcome.refused
    ? `Beans refused: ${outcome.refused.reason}`
    : result.stopReason === 'completed'
      ? undefined
      : result.stopReason === 'aborted'
        ? 'Interrupted.'
        : result.stopReason === 'max_turns'
          ? `Beans stopped after ${result.turns} turns (its maxTurns setting).`
          : result.stopReason === 'max_budget'
            ? `Beans stopped at $${result.usage.costUsd.toFixed(4)} (its maxBudgetUsd setting).`
            : result.stopReason === 'loop'
              ? `Beans stopped a loop: ${result.loop}.`
              : (result.failure?.message ?? 'The session ended with an error.');
  const text = failure === undefined ? outcome.answer : outcome.answer ? `${failure}\n\nIts last answer:\n${outcome.answer}` : failure;
  const session = sessionId
    ? [{ type: 'text' as const, text: `Beans session: ${sessionId} (session_id continues it; its transcript is the resource ${sessionUri(sessionId)})` }]
    : [];
  return { content: [{ type: 'text', text }, ...session], ...(failure !== undefined ? { isError: true } : {}) };
}
