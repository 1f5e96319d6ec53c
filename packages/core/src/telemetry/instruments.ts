import { logs, metrics, trace } from '@opentelemetry/api';
import type { TelemetryInstruments, TelemetryProviders } from './types.js';

/** The program's providers when it gave them (each missing one from the global API), else Beans' own SDK. */
export async function instrumentsFor(
  providers: TelemetryProviders | undefined,
  resource: Record<string, string>,
  version: string,
  debug?: (line: string) => void,
): Promise<{ instruments: TelemetryInstruments; shutdown: () => Promise<void> }> {
  if (providers) {
    return {
      instruments: {
        tracer: (providers.tracerProvider ?? trace.getTracerProvider()).getTracer('beans', version),
        meter: (providers.meterProvider ?? metrics.getMeterProvider()).getMeter('beans', version),
        logger: (providers.loggerProvider ?? logs.getLoggerProvider()).getLogger('beans', version),
      },
      // The program owns its providers and flushes them itself.
      shutdown: async () => {},
    };
  }
  const { startOtelSdk } = await import('./otel-sdk.js');
  return startOtelSdk(resource, version, debug);
}
