import type { Attributes } from '@opentelemetry/api';
import type { ObservedConversation, SessionObserver } from './session-observer.js';
import type { TelemetryProviders, TelemetrySettings, ToolDecision } from './types.js';

export type { TelemetryProviders } from './types.js';

/** The `telemetry` settings as configured (every key optional). */
interface TelemetryConfig {
  enabled?: boolean;
  logPrompts?: boolean;
  includeRepository?: boolean;
  organization?: string;
}

export interface StartTelemetryOptions {
  env: NodeJS.ProcessEnv;
  config?: TelemetryConfig;
  version: string;
  workspaceRoot: string;
  /** The first conversation's id, for `session.id` until a conversation is observed. */
  sessionId: string;
  agentName: () => string;
  /** Told the running turn's trace context (W3C `traceparent`) when a turn starts, undefined when it ends. */
  onTurnContext?: (traceparent: string | undefined) => void;
  /** An embedding program's own providers: telemetry is on with them, and Beans starts no SDK. */
  providers?: TelemetryProviders;
  workflowRunId?: string;
  /** Where exporter problems go (`--debug`); silent otherwise. */
  debug?: (line: string) => void;
}

export interface Telemetry {
  observe(conversation: ObservedConversation): () => void;
  recordDecision(decision: ToolDecision): void;
  /** W3C trace context of the current process's parent (TRACEPARENT), for child processes. */
  readonly traceparent?: string;
  /** Exports what is pending and stops; gives up after `timeoutMs` so a dead collector never holds a run. */
  shutdown(timeoutMs?: number): Promise<void>;
}

function telemetrySettings(env: NodeJS.ProcessEnv, config: TelemetryConfig = {}): TelemetrySettings {
  return {
    enabled: env.BEANS_ENABLE_TELEMETRY === '1' || env.BEANS_ENABLE_TELEMETRY === 'true' || config.enabled === true,
    logPrompts: env.OTEL_LOG_USER_PROMPTS === '1' || env.OTEL_LOG_USER_PROMPTS === 'true' || config.logPrompts === true,
    includeRepository: config.includeRepository === true,
    ...(config.organization ? { organization: config.organization } : {}),
  };
}

/** Undefined (and nothing loaded) unless telemetry is on or the program brought its own providers. */
export async function startTelemetry(options: StartTelemetryOptions): Promise<Telemetry | undefined> {
  const settings = telemetrySettings(options.env, options.config);
  if (!settings.enabled && !options.providers) return undefined;
  const [{ createSessionObserver }, { commonAttributes }, { instrumentsFor }, { parentContext }] = await Promise.all([
    import('./session-observer.js'),
    import('./attributes.js'),
    import('./instruments.js'),
    import('./trace-parent.js'),
  ]);
  const attributes: Attributes = commonAttributes({
    sessionId: options.sessionId,
    version: options.version,
    settings,
    workspaceRoot: options.workspaceRoot,
    env: options.env,
  });
  const { instruments, shutdown } = await instrumentsFor(
    options.providers,
    { 'service.name': 'beans', 'service.version': options.version },
    options.version,
    options.debug,
  );
  const observer: SessionObserver = createSessionObserver({
    instruments,
    settings,
    attributes,
    parent: parentContext(options.env.TRACEPARENT),
    agentName: options.agentName,
    onTurnContext: options.onTurnContext,
    workflowRunId: options.workflowRunId,
  });
  return {
    observe: (conversation) => observer.observe(conversation),
    recordDecision: (decision) => observer.recordDecision(decision),
    traceparent: options.env.TRACEPARENT,
    async shutdown(timeoutMs = 1500) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([shutdown().catch((error: Error) => options.debug?.(`telemetry: export failed: ${error.message}`)), timeout]);
      clearTimeout(timer);
    },
  };
}
