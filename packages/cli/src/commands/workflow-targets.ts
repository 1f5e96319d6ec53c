import { providerIdOf, type AgentSession } from '@beans/core';
import { reportProgressTool, sessionRunnerFor, type AgentRunnerFor, type CallTarget } from '@beans/core/workflows';
import { createCliSession, type Base } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** This process's provider, and the model when one is configured (else each worker's default). */
export function callTarget(base: Base): CallTarget {
  const provider = providerIdOf(base);
  const { model, models } = base.config.values;
  const chosen = model ?? models[provider];
  return chosen ? { provider, model: chosen } : { provider };
}

/**
 * Runs each call with the provider and model its run was started with, through this machine's keys
 * and endpoints: the process's own session serves its own target; another target gets a session of
 * its own, made once and closed with the rest.
 */
export function targetRunners(options: CliOptions, session: AgentSession, own: CallTarget): { runnerFor: AgentRunnerFor; close(): Promise<void> } {
  const others = new Map<string, Promise<AgentSession>>();
  return {
    async runnerFor(workflow, target) {
      if (!target || (target.provider === own.provider && target.model === own.model)) return sessionRunnerFor(session)(workflow);
      const key = `${target.provider}\n${target.model ?? ''}`;
      let other = others.get(key);
      if (!other) {
        other = createCliSession({ ...options, provider: target.provider, model: target.model }, 'one-shot', {
          tools: [reportProgressTool],
          persistSession: false,
        });
        others.set(key, other);
        other.catch(() => others.delete(key));
      }
      return sessionRunnerFor(await other)(workflow);
    },
    async close() {
      const made = (await Promise.allSettled(others.values())).filter((result) => result.status === 'fulfilled');
      await Promise.all(made.map((result) => result.value.close()));
    },
  };
}
