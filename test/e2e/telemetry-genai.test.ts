// Issue 58, item 2: OpenTelemetry as a collector sees it, with the real Anthropic SDK behind the
// provider: one span tree per turn (no parentless `anthropic.messages.create` from the SDK's own
// tracing counting the tokens again), the model the server answered with, finish reasons in the
// GenAI conventions' words, session.id on every metric point, the GenAI client metrics, Claude
// Code's counters for lines of code and commits, and `assistant_response` when prompts may be logged.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logEventsOf, metricPointsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import type { ScriptOptions, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const closers: (OtlpReceiver | ScriptedServer)[] = [];
afterEach(async () => {
  for (const closer of closers.splice(0)) await closer.close();
});

const REQUESTED = 'claude-sonnet-5-5';
const ANSWERED = 'claude-sonnet-5-5-20261101';

const WRITE_AND_COMMIT: ScriptOptions['turns'] = [
  { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'one\ntwo\nthree\n' } }] },
  { toolCalls: [{ name: 'shell', args: { command: 'git add a.txt && git commit -q -m "add a"' } }] },
  { text: 'Committed a.txt.' },
];

async function run(env: NodeJS.ProcessEnv = {}, turns = WRITE_AND_COMMIT, repo = makeTempRepo()) {
  const collector = await startOtlpReceiver();
  closers.push(collector);
  const model = await startScriptedAnthropic({ answerModel: (requested) => (requested === REQUESTED ? ANSWERED : requested), turns });
  closers.push(model);
  const result = await runBeans(['-p', 'write a.txt and commit it', '--provider', 'anthropic', '-m', REQUESTED, '--yolo', '-o', 'json'], {
    cwd: repo.dir,
    env: {
      ...repo.env,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: model.url,
      BEANS_ENABLE_TELEMETRY: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...env,
    },
    timeoutMs: 60_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return { collector, sessionId: (JSON.parse(result.stdout) as { session_id: string }).session_id };
}

describe('OpenTelemetry with the Anthropic SDK (issue 58)', () => {
  it('one span tree per turn, the answering model, normalised finish reasons; every metric point has session.id; GenAI and commit metrics', async () => {
    const { collector, sessionId } = await run();
    const spans = spansOf(collector.requests);
    expect(spans.map((span) => span.name)).not.toContain('anthropic.messages.create');
    // One tree: a single root (the turn), every other span's parent among them.
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId));
    expect(roots.map((span) => span.name)).toEqual([expect.stringMatching(/^invoke_agent /)]);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);

    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(3);
    for (const chat of chats) expect(chat.attributes).toMatchObject({ 'gen_ai.request.model': REQUESTED, 'gen_ai.response.model': ANSWERED });
    const reasons = chats.map((chat) =>
      (chat.attributes['gen_ai.response.finish_reasons'] as { values: { stringValue: string }[] }).values.map((v) => v.stringValue),
    );
    expect(reasons).toEqual([['tool_call'], ['tool_call'], ['stop']]);
    // Tokens are on the chat spans only, once per call.
    expect(spans.filter((span) => span.attributes['gen_ai.usage.output_tokens'] !== undefined)).toHaveLength(3);

    const points = metricPointsOf(collector.requests);
    const beans = points.filter((point) => point.metric.startsWith('beans.'));
    expect(beans.length).toBeGreaterThan(5);
    for (const point of beans) expect(point.attributes['session.id'], point.metric).toBe(sessionId);
    const named = (metric: string) => points.filter((point) => point.metric === metric);
    expect(named('beans.lines_of_code.count')).toEqual([expect.objectContaining({ value: 3, attributes: expect.objectContaining({ type: 'added' }) })]);
    expect(named('beans.commit.count')).toEqual([expect.objectContaining({ value: 1 })]);

    const tokens = named('gen_ai.client.token.usage');
    expect(tokens.map((point) => point.attributes['gen_ai.token.type']).sort()).toEqual(['input', 'output']);
    for (const point of tokens) {
      expect(point.count).toBe(3);
      expect(point.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': REQUESTED,
        'gen_ai.response.model': ANSWERED,
        'session.id': sessionId,
      });
    }
    const durations = named('gen_ai.client.operation.duration');
    expect(durations).toEqual([expect.objectContaining({ count: 3, attributes: expect.objectContaining({ 'gen_ai.response.model': ANSWERED }) })]);

    // The answer's text is prompt material: not without OTEL_LOG_USER_PROMPTS.
    expect(logEventsOf(collector.requests).filter((event) => event['event.name'] === 'assistant_response')).toEqual([]);
  });

  it('lines removed and pull requests are counted too (gh pr create), with session.id', async () => {
    const repo = makeTempRepo({ 'b.txt': 'keep\ndrop one\ndrop two\n' });
    // A gh that creates the pull request (the counter follows a gh pr create that succeeded).
    const bin = path.join(repo.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'gh'), '#!/bin/sh\necho https://github.com/o/r/pull/1\n', { mode: 0o755 });
    const { collector, sessionId } = await run(
      { PATH: `${bin}:${repo.env.PATH ?? process.env.PATH}` },
      [
        { toolCalls: [{ name: 'read_file', args: { path: 'b.txt' } }] },
        { toolCalls: [{ name: 'edit_file', args: { path: 'b.txt', old_string: 'drop one\ndrop two\n', new_string: 'kept\n' } }] },
        { toolCalls: [{ name: 'shell', args: { command: 'gh pr create --fill' } }] },
        { text: 'Opened the pull request.' },
      ],
      repo,
    );
    const named = (metric: string) => metricPointsOf(collector.requests).filter((point) => point.metric === metric);
    const lines = Object.fromEntries(named('beans.lines_of_code.count').map((point) => [point.attributes.type, point.value]));
    expect(lines).toEqual({ added: 1, removed: 2 });
    expect(named('beans.pull_request.count')).toEqual([
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'session.id': sessionId }) }),
    ]);
    expect(named('beans.commit.count')).toEqual([]);
  });

  it('assistant_response events carry the answer when prompts may be logged', async () => {
    const { collector, sessionId } = await run({ OTEL_LOG_USER_PROMPTS: '1' });
    const responses = logEventsOf(collector.requests).filter((event) => event['event.name'] === 'assistant_response');
    expect(responses).toEqual([expect.objectContaining({ response: 'Committed a.txt.', model: REQUESTED, 'session.id': sessionId })]);
  });
});
