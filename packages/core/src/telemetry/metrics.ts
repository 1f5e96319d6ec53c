import type { Counter, Meter } from '@opentelemetry/api';

export interface BeansMetrics {
  sessions: Counter;
  tokens: Counter;
  cost: Counter;
  linesOfCode: Counter;
  toolDecisions: Counter;
  commits: Counter;
  pullRequests: Counter;
  activeTime: Counter;
}

/** The `beans.*` metrics, named as Claude Code names its `claude_code.*` ones. */
export function createBeansMetrics(meter: Meter): BeansMetrics {
  return {
    sessions: meter.createCounter('beans.session.count', { description: 'Sessions started' }),
    tokens: meter.createCounter('beans.token.usage', {
      description: 'Tokens used, by type (input, output, cacheRead, cacheCreation) and model',
      unit: 'tokens',
    }),
    cost: meter.createCounter('beans.cost.usage', { description: 'Cost of the session, by model', unit: 'USD' }),
    linesOfCode: meter.createCounter('beans.lines_of_code.count', { description: 'Lines of code changed (added, removed)' }),
    toolDecisions: meter.createCounter('beans.tool.decision', { description: 'Tool permission decisions, by tool, decision and source' }),
    commits: meter.createCounter('beans.commit.count', { description: 'Git commits the shell tool made' }),
    pullRequests: meter.createCounter('beans.pull_request.count', { description: 'Pull requests the shell tool created' }),
    activeTime: meter.createCounter('beans.active_time.total', { description: 'Time the agent was working', unit: 's' }),
  };
}
