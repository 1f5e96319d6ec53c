// Issue 42: a program embedding Beans gives query() its own OpenTelemetry providers.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import { query } from '../../src/index.js';

describe("telemetry with the program's own providers", () => {
  it('query() sends its spans and metrics to the providers it is given, with telemetry otherwise off', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n' });
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'done' }] });
    const spans = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
    const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });

    for await (const message of query({
      prompt: 'read a.txt',
      options: { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, telemetry: { tracerProvider, meterProvider } },
    }))
      void message;
    await Promise.all([reader.forceFlush(), tracerProvider.forceFlush()]);

    const names = spans.getFinishedSpans().map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^invoke_agent /), 'execute_tool read_file', expect.stringMatching(/^chat /)]));
    const turn = spans.getFinishedSpans().find((span) => span.name.startsWith('invoke_agent'))!;
    const tool = spans.getFinishedSpans().find((span) => span.name === 'execute_tool read_file')!;
    expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    const metricNames = metricExporter
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name)));
    expect(metricNames).toEqual(expect.arrayContaining(['beans.session.count', 'beans.token.usage', 'beans.tool.decision']));
  });
});
