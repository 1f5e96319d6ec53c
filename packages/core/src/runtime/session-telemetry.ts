import { startTelemetry, type Telemetry } from '../telemetry/index.js';
import { VERSION } from '../version.js';
import type { RuntimeBase } from './base.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SessionTelemetryInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  permissions: PermissionChain;
  handoffs: Handoffs;
  live: Live;
}

/**
 * Part: OpenTelemetry, only when it is on (`BEANS_ENABLE_TELEMETRY=1`, `telemetry.enabled`, or the
 * program's own providers); otherwise undefined and the SDK never loads. It hears the permission
 * chain's decisions here and each conversation's events from the conversation part.
 */
export async function startSessionTelemetry(input: SessionTelemetryInput): Promise<Telemetry | undefined> {
  const { base, options, permissions, handoffs } = input;
  const telemetry = await startTelemetry({
    env: base.env,
    config: base.config.values.telemetry,
    version: VERSION,
    workspaceRoot: base.workspace.root,
    sessionId: options.sessionId ?? '',
    agentName: () => handoffs.controller.active.name,
    // Hooks run during a turn join its trace.
    onTurnContext: (traceparent) => (input.live.traceparent = traceparent),
    ...(options.telemetry ? { providers: options.telemetry } : {}),
    // Exporter trouble is never shown unless asked for (--debug).
    ...(base.config.values.debug ? { debug: (line: string) => void process.stderr.write(`beans: ${line}\n`) } : {}),
  });
  if (telemetry) permissions.onDecision((decision) => telemetry.recordDecision(decision));
  return telemetry;
}
