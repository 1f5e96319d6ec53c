import type { Logger, LoggerProvider, Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';

/** What decides whether and what Beans exports (settings `telemetry.*` and the environment). */
export interface TelemetrySettings {
  enabled: boolean;
  /** Prompt text in `user_prompt` events (`telemetry.logPrompts`, `OTEL_LOG_USER_PROMPTS=1`). */
  logPrompts: boolean;
  /** The workspace's repository name as an attribute. */
  includeRepository: boolean;
  organization?: string;
}

/** An embedding program's own OpenTelemetry set-up; Beans then starts no SDK of its own. */
export interface TelemetryProviders {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
  loggerProvider?: LoggerProvider;
}

export interface TelemetryInstruments {
  tracer: Tracer;
  meter: Meter;
  logger: Logger;
}

/** Where a tool call's go-ahead came from, for `beans.tool.decision` and `tool_decision` events. */
type DecisionSource = 'config' | 'user' | 'read_only' | 'hook' | 'mode';

export interface ToolDecision {
  toolName: string;
  toolUseId: string;
  decision: 'accept' | 'reject';
  source: DecisionSource;
}
