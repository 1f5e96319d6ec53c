import { ROOT_CONTEXT, type Context, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const fromRecord: TextMapGetter<Record<string, string>> = { get: (carrier, key) => carrier[key], keys: (carrier) => Object.keys(carrier) };

/** A CI pipeline's span (TRACEPARENT, W3C trace context) as the parent of every run, else the root. */
export function parentContext(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return new W3CTraceContextPropagator().extract(ROOT_CONTEXT, { traceparent }, fromRecord);
}
