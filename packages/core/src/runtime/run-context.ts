import type { InputGuardrail, OutputGuardrail } from '../guardrails/function-guardrails.js';
import type { AnyTool } from '../tools/tool.js';
import type { AgentMessage } from '../agent/types.js';
import type { HandoffInfo, HandoffInputData } from '../subagents/handoff.js';
import type { AgentSessionOptions } from './session-options.js';

/**
 * The options that may depend on the program's own `context` object (the OpenAI Agents SDK's run
 * context): the instructions and the tools are functions of it, and the guardrails and handoff
 * callbacks receive it. Generic so a program's context keeps its type in every callback.
 */
export interface RunContextOptions<TContext> {
  /** The program's object for this session (a user, a tenant, a database handle); Beans never reads it. */
  context?: TContext;
  /**
   * Replaces the profile's instructions; the environment, context files and skills are still added.
   * A function is called once with `context` when the session is built (the OpenAI Agents SDK's
   * dynamic `instructions`).
   */
  systemPrompt?: string | ((context: TContext) => string | Promise<string>);
  /**
   * Tools beyond the built-in ones (SDK or MCP tools); they are offered whatever the profile's tool
   * list says. A function is called once with `context` when the session is built.
   */
  tools?: readonly AnyTool[] | ((context: TContext) => readonly AnyTool[] | Promise<readonly AnyTool[]>);
  /** Async checks of each user prompt, after the pattern rules (`guardrails`) pass; a tripwire refuses the prompt. */
  inputGuardrails?: readonly InputGuardrail<TContext>[];
  /** Async checks of each final answer, after the pattern rules pass; a tripwire withholds the answer. */
  outputGuardrails?: readonly OutputGuardrail<TContext>[];
  /**
   * Called when the conversation is about to move to another agent (the `handoff` tool, `match:`
   * routing, /agent), before anything changes. Throwing refuses the handoff; the model reads why.
   */
  onHandoff?(handoff: HandoffInfo, context: TContext): void | Promise<void>;
  /**
   * The OpenAI Agents SDK's handoff `inputFilter`: given the conversation so far, returns the history
   * the agent taking it reads from now on (the session file keeps everything).
   */
  handoffInputFilter?(data: HandoffInputData<TContext>): readonly AgentMessage[] | Promise<readonly AgentMessage[]>;
}

/** `createAgentSession`'s options: the session's options, with those that may depend on `context` typed by it. */
export type CreateSessionOptions<TContext = unknown> = Omit<AgentSessionOptions, keyof RunContextOptions<TContext>> & RunContextOptions<TContext>;

/**
 * Part: what depends on the program's `context` is settled first, so every later part reads plain
 * values (a string system prompt, a list of tools) and the context itself as `options.context`.
 */
export async function bindRunContext<TContext>(options: CreateSessionOptions<TContext>): Promise<AgentSessionOptions> {
  const { systemPrompt, tools, ...rest } = options;
  const context = options.context as TContext;
  const prompt = typeof systemPrompt === 'function' ? await systemPrompt(context) : systemPrompt;
  const toolList = typeof tools === 'function' ? await tools(context) : tools;
  return { ...rest, ...(prompt !== undefined ? { systemPrompt: prompt } : {}), ...(toolList !== undefined ? { tools: [...toolList] } : {}) };
}
