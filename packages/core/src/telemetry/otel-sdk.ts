// Loaded only when telemetry is on: the OpenTelemetry SDK and its exporters are a large graph that
// nothing else needs, so the start-up path never pays for it.
import { diag, DiagLogLevel, logs, metrics, trace } from '@opentelemetry/api';
import { envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TelemetryInstruments } from './types.js';

export interface StartedSdk {
  instruments: TelemetryInstruments;
  shutdown(): Promise<void>;
}

/**
 * The official Node SDK, configured by the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` grpc | http/protobuf | http/json, per-signal endpoints, headers,
 * `OTEL_{TRACES,METRICS,LOGS}_EXPORTER` otlp | console | none, `OTEL_RESOURCE_ATTRIBUTES`, export
 * intervals). `resource` is Beans' own; the environment's attributes win over it.
 */
export function startOtelSdk(resource: Record<string, string>, version: string, debug?: (line: string) => void): StartedSdk {
  // A collector that is down must never show up on the terminal, unless asked (--debug).
  if (debug) {
    const write = (message: string, ...args: unknown[]) => debug(`telemetry: ${[message, ...args.map(String)].join(' ')}`);
    diag.setLogger({ error: write, warn: write, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
  }
  const sdk = new NodeSDK({ resource: resourceFromAttributes(resource), instrumentations: [], resourceDetectors: [envDetector] });
  sdk.start();
  return {
    instruments: { tracer: trace.getTracer('beans', version), meter: metrics.getMeter('beans', version), logger: logs.getLogger('beans', version) },
    shutdown: () => sdk.shutdown(),
  };
}
