import type { BeforeToolCall } from '../agent/tool-hooks.js';
import { claudeToolName } from '../claude/vocabulary.js';
import { UsageError } from '../errors.js';
import type { ToolLimits } from './session-options.js';

/** One conversation's tool quotas: the before-call check that counts, and the start of each run. */
export interface ToolQuota {
  beforeToolCall: BeforeToolCall;
  /** A new run (a user message) counts from zero again. */
  startRun(): void;
}

/**
 * `toolLimits`: each call the permission policy let through counts against its tool's quota; a call
 * over it is answered with an error result (the model is told to finish without it), never run.
 * Throws UsageError for a limit that is not a whole number of at least 0.
 */
export function createToolQuota(limits: ToolLimits | undefined): ToolQuota | undefined {
  if (!limits || Object.keys(limits).length === 0) return undefined;
  for (const [tool, limit] of Object.entries(limits)) {
    if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`toolLimits.${tool} is ${String(limit)}; give a whole number of calls, 0 or more.`);
  }
  let counts = new Map<string, number>();
  return {
    startRun: () => {
      counts = new Map();
    },
    beforeToolCall: async (context) => {
      const name = context.tool.name;
      const key = name in limits ? name : claudeToolName(name) in limits ? claudeToolName(name) : undefined;
      if (key === undefined) return undefined;
      const limit = limits[key];
      const used = counts.get(key) ?? 0;
      if (used >= limit) {
        return {
          block: true,
          status: 'error',
          reason: `Tool limit reached: ${key} may be called at most ${limit} time${limit === 1 ? '' : 's'} per run, so this call was not run. Finish the task without calling ${key} again.`,
        };
      }
      counts.set(key, used + 1);
      return undefined;
    },
  };
}
