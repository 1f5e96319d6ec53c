// Issue 42: OpenTelemetry metrics, log events and traces, exported before a one-shot run exits.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { logEventsOf, metricNamesOf, spansOf, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(options: { grpc?: boolean } = {}): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(options);
  receivers.push(started);
  return started;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const SECRET = 'sk-ant-telemetry-must-never-see-this';

async function oneShotWithATool(env: NodeJS.ProcessEnv, prompt = 'read the notes please') {
  const repo = makeTempRepo({ 'notes.txt': 'FILE-CONTENT-NOT-EXPORTED\n' });
  const model = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'The notes say hello.' }] });
  const run = await runBeans(['-p', prompt], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', ANTHROPIC_API_KEY: SECRET, ...env },
  });
  return run;
}

const otlp = (url: string, protocol = 'http/json') => ({
  BEANS_ENABLE_TELEMETRY: '1',
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
});

describe('OpenTelemetry export', () => {
  it('a one-shot run with a tool call exports metrics, events and spans before it exits, under the TRACEPARENT it was given', async () => {
    const collector = await receiver();
    const run = await oneShotWithATool({ ...otlp(collector.url), TRACEPARENT: `00-${TRACE_ID}-${PARENT_SPAN}-01` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('The notes say hello.');

    expect(metricNamesOf(collector.requests)).toEqual(
      expect.arrayContaining(['beans.session.count', 'beans.token.usage', 'beans.tool.decision', 'beans.active_time.total']),
    );
    const events = logEventsOf(collector.requests);
    const named = (name: string) => events.filter((event) => event['event.name'] === name);
    expect(named('user_prompt')).toEqual([expect.objectContaining({ prompt_length: 'read the notes please'.length })]);
    expect(named('user_prompt')[0]).not.toHaveProperty('prompt');
    expect(named('api_request')).toHaveLength(2);
    expect(named('tool_decision')).toEqual([expect.objectContaining({ tool_name: 'read_file', decision: 'accept' })]);
    expect(named('tool_result')).toEqual([expect.objectContaining({ tool_name: 'read_file', success: true })]);
    for (const event of events)
      expect(event).toMatchObject({ 'session.id': expect.any(String), 'prompt.id': expect.any(String), 'app.version': expect.any(String) });

    const spans = spansOf(collector.requests);
    const turn = spans.find((span) => span.name.startsWith('invoke_agent'))!;
    expect(turn).toBeDefined();
    expect(turn.traceId).toBe(TRACE_ID);
    expect(turn.parentSpanId).toBe(PARENT_SPAN);
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(turn.spanId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'ollama',
        'gen_ai.usage.output_tokens': expect.any(Number),
      });
    }
    const tool = spans.find((span) => span.name === 'execute_tool read_file')!;
    expect(tool.parentSpanId).toBe(turn.spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'read_file' });

    const everything = JSON.stringify(collector.requests);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('FILE-CONTENT-NOT-EXPORTED');
    expect(everything).not.toContain('read the notes please');
  });

  it("hooks run during a turn get that turn's span as TRACEPARENT", async () => {
    const collector = await receiver();
    const repo = makeTempRepo({ 'notes.txt': 'hello\n' });
    const seen = path.join(repo.home, 'traceparent.txt');
    const settings = {
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `printf '%s\\n' "$TRACEPARENT" >> ${JSON.stringify(seen)}` }] }] },
    };
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(settings));
    const model = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'ok' }] });
    const run = await runBeans(['-p', 'read it'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: model.url, ...otlp(collector.url), TRACEPARENT: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    expect(run.code, run.stderr).toBe(0);
    const turn = spansOf(collector.requests).find((span) => span.name.startsWith('invoke_agent'))!;
    expect(readFileSync(seen, 'utf8').trim()).toBe(`00-${TRACE_ID}-${turn.spanId}-01`);
  });

  it('is off by default, and sends prompt text only when OTEL_LOG_USER_PROMPTS=1', async () => {
    const collector = await receiver();
    const off = await oneShotWithATool({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(off.code).toBe(0);
    expect(collector.requests).toEqual([]);

    const on = await oneShotWithATool({ ...otlp(collector.url), OTEL_LOG_USER_PROMPTS: '1' }, 'the words of my prompt');
    expect(on.code).toBe(0);
    expect(logEventsOf(collector.requests).find((event) => event['event.name'] === 'user_prompt')).toMatchObject({ prompt: 'the words of my prompt' });
  });

  it('a collector that is down costs under 2 s and the run still exits 0', async () => {
    const live = await receiver();
    const dead = await startOtlpReceiver();
    await dead.close();
    // Against the same run exporting to a collector that answers, so only the dead one's cost counts.
    const baseline = await oneShotWithATool(otlp(live.url));
    const run = await oneShotWithATool(otlp(dead.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/telemetry|ECONNREFUSED|export/i);
    expect(run.durationMs - baseline.durationMs).toBeLessThan(2000);
  });

  it('http/protobuf and gRPC exporters each reach a receiver', async () => {
    const proto = await receiver();
    expect((await oneShotWithATool(otlp(proto.url, 'http/protobuf'))).code).toBe(0);
    expect(proto.requests.map((request) => `${request.path} ${request.contentType}`)).toEqual(
      expect.arrayContaining(['/v1/traces application/x-protobuf', '/v1/logs application/x-protobuf', '/v1/metrics application/x-protobuf']),
    );

    const grpc = await receiver({ grpc: true });
    expect((await oneShotWithATool(otlp(grpc.url, 'grpc'))).code).toBe(0);
    expect(grpc.requests.map((request) => request.path)).toEqual(expect.arrayContaining(['/opentelemetry.proto.collector.trace.v1.TraceService/Export']));
  });
});
