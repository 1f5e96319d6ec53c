import * as z from 'zod';
import type { AgentMessage } from '../agent/types.js';
import { BUILTIN_PARAMETERS } from '../tools/builtin-parameters.generated.js';
import { defineTool, usePrecomputedParameters } from '../tools/tool.js';
import { findSubagent, type SubagentDefinition } from './agents.js';
import { loadRe2 } from '../re2.js';
import { lazily } from '../lazily.js';

export const HANDOFF_TOOL_NAME = 'handoff';
/** Handoffs (by the model or by routing) allowed while one user message is answered. */
const MAX_HANDOFFS_PER_MESSAGE = 3;

export type HandoffTrigger = 'tool' | 'match' | 'command';

/** The agent holding the conversation: the session's profile, or the agent it was handed to. */
export interface ActiveAgent {
  name: string;
  qualifiedName?: string;
  /** `handoffs:`: the only agents it may pass the conversation to; undefined means any. */
  handoffs?: string[];
  /** `match:`: keywords and `/regex/` strings that route a user message to it. */
  match?: string[];
}

/** One handoff as it happens: who had the conversation, who gets it, why, and what moved it. */
export interface HandoffInfo {
  from: string;
  to: string;
  reason: string;
  trigger: HandoffTrigger;
}

/** What a handoff's input filter is given: the handoff, the conversation so far, and the run's context. */
export interface HandoffInputData<TContext = unknown> extends HandoffInfo {
  /** Every message of the conversation, the handoff's own tool call last when the model asked for it. */
  history: readonly AgentMessage[];
  context: TContext;
}

export interface HandoffControllerOptions {
  /** Every agent the conversation may move to (plugin and inline agents). */
  agents: readonly SubagentDefinition[];
  initial: ActiveAgent;
  /** Makes `agent` the active profile (system prompt, tools, model); the history stays. */
  apply(agent: SubagentDefinition, controller: HandoffController, handoff: HandoffInfo): Promise<void>;
  /** Announces a done handoff (the UI line, stream-json's `system/handoff`, the session log). */
  announce(handoff: { from: string; to: string; reason: string; trigger: HandoffTrigger }): void;
}

export class HandoffError extends Error {}

/**
 * Who holds the conversation and where it may go: the `handoff` tool, `match:` routing and `/agent`
 * all move it through here, so the `handoffs:` restriction and the per-message limit hold for each.
 */
export class HandoffController {
  private current: ActiveAgent;
  private count = 0;

  constructor(private readonly options: HandoffControllerOptions) {
    this.current = options.initial;
  }

  get active(): ActiveAgent {
    return this.current;
  }

  /** The session's own agent, where the conversation started. */
  get initial(): ActiveAgent {
    return this.options.initial;
  }

  /** A new user message: its handoffs are counted from zero. */
  startMessage(): void {
    this.count = 0;
  }

  /** The agents the active one may hand the conversation to. */
  targets(): SubagentDefinition[] {
    const restriction = this.current.handoffs;
    return this.options.agents.filter(
      (agent) => !this.isActive(agent) && (!restriction || restriction.some((name) => name === agent.name || name === agent.qualifiedName)),
    );
  }

  /** Passes the conversation to `name`; throws a HandoffError saying why not. `/agent` by hand ignores `handoffs:` and the limit. */
  async handoff(name: string, reason: string, trigger: HandoffTrigger): Promise<SubagentDefinition> {
    const byHand = trigger === 'command';
    const agent = findSubagent(byHand ? this.options.agents : this.targets(), name);
    if (!agent) {
      if (this.matches(name)) throw new HandoffError(`The conversation is already with ${this.current.name}.`);
      const valid = (byHand ? this.options.agents : this.targets()).map((target) => target.name);
      throw new HandoffError(
        `There is no agent "${name}" to hand off to. ${valid.length > 0 ? `Valid agents: ${valid.join(', ')}.` : `${this.current.name} may not hand off to anyone.`}`,
      );
    }
    if (!byHand && this.count >= MAX_HANDOFFS_PER_MESSAGE) {
      throw new HandoffError(`The conversation was already handed off ${MAX_HANDOFFS_PER_MESSAGE} times for this message; answer the user yourself.`);
    }
    if (!byHand) this.count++;
    const previous = this.current;
    // Active first, so the new agent's own handoff tool lists its own targets.
    this.current = { name: agent.name, qualifiedName: agent.qualifiedName, handoffs: agent.handoffs, match: agent.match };
    try {
      await this.options.apply(agent, this, { from: previous.name, to: agent.name, reason, trigger });
    } catch (error) {
      this.current = previous;
      throw error;
    }
    this.options.announce({ from: previous.name, to: agent.name, reason, trigger });
    return agent;
  }

  /** A fresh conversation (`/clear`) starts with the session's own agent again. */
  reset(): void {
    this.current = this.options.initial;
    this.count = 0;
  }

  /**
   * Routes a user message before the model runs: to the agent whose `match:` scores highest, when
   * that beats the active agent's own score and no other agent ties it. Returns the agent moved to.
   */
  async route(text: string): Promise<SubagentDefinition | undefined> {
    const scored = await Promise.all(this.targets().map(async (agent) => ({ agent, score: await matchScore(agent.match, text) })));
    const ranked = scored.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score);
    const best = ranked[0];
    if (!best || ranked[1]?.score === best.score) return undefined;
    if (best.score <= (await matchScore(this.current.match, text))) return undefined;
    if (this.count >= MAX_HANDOFFS_PER_MESSAGE) return undefined;
    const matched = await bestPatterns(best.agent.match, text);
    return this.handoff(best.agent.name, `the message matches ${matched.join(', ')}`, 'match');
  }

  private isActive(agent: SubagentDefinition): boolean {
    return this.matches(agent.name) || (agent.qualifiedName !== undefined && this.matches(agent.qualifiedName));
  }

  private matches(name: string): boolean {
    return name === this.current.name || name === this.current.qualifiedName;
  }
}

/**
 * How well a message fits an agent's `match:` list: a keyword phrase found as whole words scores
 * its number of words (longer phrases say more), a `/regex/` that matches scores 2.
 */
export async function matchScore(patterns: readonly string[] = [], text: string): Promise<number> {
  const score = await patternScorer(patterns);
  return patterns.reduce((sum, pattern) => sum + score(pattern, text), 0);
}

async function bestPatterns(patterns: readonly string[] = [], text: string): Promise<string[]> {
  const score = await patternScorer(patterns);
  return patterns.filter((pattern) => score(pattern, text) > 0).map((pattern) => (pattern.startsWith('/') ? pattern : `"${pattern}"`));
}

const REGEX_PATTERN = /^\/(.+)\/([a-z]*)$/s;

// `match:` comes from plugin files a cloned repository may ship, and every user message is tested
// against it, so a `/regex/` runs on RE2 (linear time), loaded only for lists that hold one. Patterns
// RE2 does not support (lookaround, backreferences) never match.
async function patternScorer(patterns: readonly string[]): Promise<(pattern: string, text: string) => number> {
  const re2 = patterns.some((pattern) => REGEX_PATTERN.test(pattern.trim())) ? await loadRe2() : undefined;
  return (pattern, text) => {
    const regex = REGEX_PATTERN.exec(pattern.trim());
    if (regex && re2) {
      const flags = regex[2];
      try {
        return re2.compile(regex[1], re2.CASE_INSENSITIVE | (flags.includes('s') ? re2.DOTALL : 0) | (flags.includes('m') ? re2.MULTILINE : 0)).test(text)
          ? 2
          : 0;
      } catch {
        return 0;
      }
    }
    const words = pattern.trim().toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return 0;
    const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'iu').test(text) ? words.length : 0;
  };
}

const handoffInput = lazily(() =>
  z.object({
    agent: z.string().min(1),
    reason: z.string().describe('One sentence, shown to the user'),
  }),
);
usePrecomputedParameters(handoffInput, BUILTIN_PARAMETERS[HANDOFF_TOOL_NAME]);

/** The model's way to pass the whole conversation to an agent better suited for it; the tool lists the targets. */
export function createHandoffTool(controller: HandoffController) {
  const targets = controller.targets();
  return defineTool({
    name: HANDOFF_TOOL_NAME,
    // Names only: every request carries this, and task's description already says what each agent does.
    description: [
      'Passes the whole conversation to an agent that answers from then on. Only when the request is clearly its speciality; for a side job use task.',
      `Agents: ${targets.map((agent) => agent.name).join(', ')}.`,
    ].join('\n'),
    kind: 'meta',
    schema: handoffInput,
    summarize: (input) => `to ${input.agent}`,
    async execute(input) {
      try {
        const agent = await controller.handoff(input.agent, input.reason, 'tool');
        return { content: `The conversation is now with the ${agent.name} agent. Continue as ${agent.name}, following its instructions.` };
      } catch (error) {
        if (error instanceof HandoffError) return { content: error.message, isError: true };
        throw error;
      }
    },
  });
}
