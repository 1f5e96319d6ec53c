import type { Counter, Histogram, Meter } from '@opentelemetry/api';

export interface BeansMetrics {
  sessions: Counter;
  tokens: Counter;
  cost: Counter;
  linesOfCode: Counter;
  toolDecisions: Counter;
  commits: Counter;
  pullRequests: Counter;
  activeTime: Counter;
  /** The OpenTelemetry GenAI semantic conventions' client metrics. */
  genAiTokens: Histogram;
  genAiDuration: Histogram;
}

// The bucket boundaries the GenAI semantic conventions advise for these two histograms.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

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
    genAiTokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    genAiDuration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
}
