import type { BeansConfig } from '../config/index.js';
import { startTelemetry, type Telemetry } from '../telemetry/index.js';
import { VERSION } from '../version.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SessionTelemetryInput {
  /** `BEANS_ENABLE_TELEMETRY` and the standard `OTEL_*` variables. */
  env: NodeJS.ProcessEnv;
  workspace: Workspace;
  /** `telemetry.*`, and `debug` (exporter trouble is shown only then). */
  settings: Pick<BeansConfig, 'telemetry' | 'debug'>;
  /** The session's id, and the program's own OpenTelemetry providers. */
  options: Pick<AgentSessionOptions, 'sessionId' | 'telemetry'>;
  permissions: Pick<PermissionChain, 'onDecision'>;
  handoffs: Pick<Handoffs, 'controller'>;
  live: Live;
}

/**
 * Part: OpenTelemetry, only when it is on (`BEANS_ENABLE_TELEMETRY=1`, `telemetry.enabled`, or the
 * program's own providers); otherwise undefined and the SDK never loads. It hears the permission
 * chain's decisions here and each conversation's events from the conversation part.
 */
export async function startSessionTelemetry(input: SessionTelemetryInput): Promise<Telemetry | undefined> {
  const { settings, options, permissions, handoffs } = input;
  const telemetry = await startTelemetry({
    env: input.env,
    config: settings.telemetry,
    version: VERSION,
    workspaceRoot: input.workspace.root,
    sessionId: options.sessionId ?? '',
    agentName: () => handoffs.controller.active.name,
    // Hooks run during a turn join its trace.
    onTurnContext: (traceparent) => (input.live.traceparent = traceparent),
    ...(options.telemetry ? { providers: options.telemetry } : {}),
    // Exporter trouble is never shown unless asked for (--debug).
    ...(settings.debug ? { debug: (line: string) => void process.stderr.write(`beans: ${line}\n`) } : {}),
  });
  if (telemetry) permissions.onDecision((decision) => telemetry.recordDecision(decision));
  return telemetry;
}
