// Issue 18: long runs that must not fall over or spin.
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

describe('loop detection', () => {
  it('a model that repeats one tool call is stopped within its bound: error_during_execution, exit 1', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n' });
    const server = await scriptedOllama({ turns: () => ({ text: 'Checking again.', toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }) });
    const run = await runBeans(['-p', 'read it', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as { subtype: string; num_turns: number; errors: string[] };
    expect(result.subtype).toBe('error_during_execution');
    expect(result.num_turns).toBe(5);
    expect(result.errors[0]).toMatch(/^loop detected: /);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(5);
  });

  it('can be turned off in settings (the turn limit still applies)', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n', '.beans/settings.json': '{"loopDetection": {"enabled": false}}' });
    const server = await scriptedOllama({ turns: () => ({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }) });
    const run = await runBeans(['-p', 'read it', '-o', 'json', '--max-turns', '8'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_turns', num_turns: 8 });
  });
});

describe('output that is never lost', () => {
  it('a 10 MB shell output is cut for the model, saved whole, and readable at an offset', async () => {
    const repo = makeTempRepo();
    let savedPath = '';
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (n === 0) return { toolCalls: [{ name: 'shell', args: { command: 'seq 1 1500000' } }] };
        if (n === 1) {
          const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
          savedPath = /saved in (\S+?):/.exec(messages.at(-1)!.content)?.[1] ?? '';
          return { toolCalls: [{ name: 'read_file', args: { path: savedPath, offset: 777777, limit: 2 } }] };
        }
        if (n === 2) return { toolCalls: [{ name: 'grep', args: { pattern: '^1234567$', path: savedPath } }] };
        return { text: 'done' };
      },
    });
    const run = await runBeans(['-p', 'count', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const toolResult = (i: number) =>
      (server.requests.filter((r) => r.kind === 'chat')[i]!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
    expect(toolResult(1)).toMatch(/lines cut/);
    expect(toolResult(1).length).toBeLessThan(45_000);
    expect(savedPath).toContain('.outputs');
    expect(toolResult(2)).toMatch(/777777\s+777777\n\s*777778\s+777778/);
    expect(toolResult(3)).toContain(':1234567: 1234567');
  });
});

describe('automatic compaction', () => {
  it('summarises older turns when a request would pass 80% of a small context window, keeps recent ones, and --continue restores the view', async () => {
    const files: Record<string, string> = {};
    // Sized against the fixed prompt (system prompt + tool declarations): 180 lines before shell_output and kill_shell (~600 bytes) moved the trigger, 165 before notebook_edit (654 bytes).
    for (let i = 1; i <= 5; i++) files[`big${i}.txt`] = `${`file ${i} line with some words in it\n`.repeat(150)}`;
    const repo = makeTempRepo(files);
    let work = 0;
    const server = await scriptedOllama({
      models: [{ name: 'tiny:latest', capabilities: ['completion', 'tools'], contextLength: 8_000 }],
      turns: (request) => {
        const body = request.body as { messages: { role: string; content: string }[] };
        if (body.messages[0]?.content.startsWith('Summarise the conversation')) return { text: 'SUMMARY: read big1 to big3; nothing changed yet.' };
        work++;
        if (work <= 5) return { toolCalls: [{ name: 'read_file', args: { path: `big${work}.txt` } }] };
        return { text: `finished after ${work - 1} reads` };
      },
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const run = await runBeans(['-p', 'read all the big files', '-m', 'tiny:latest', '-o', 'stream-json'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    const boundary = lines.find((line) => line.type === 'system' && line.subtype === 'compact_boundary');
    expect(boundary).toMatchObject({ compact_metadata: { trigger: 'auto' } });
    const chats = server.requests.filter((r) => r.kind === 'chat');
    const summaryAt = chats.findIndex((r) => (r.body as { messages: { content: string }[] }).messages[0]!.content.startsWith('Summarise'));
    expect(summaryAt).toBeGreaterThan(0);
    const after = chats[summaryAt + 1]!;
    const afterText = JSON.stringify(after.body);
    expect(afterText).toContain('Summary of the earlier conversation:\\nSUMMARY: read big1 to big3');
    // The recent turns are still there verbatim: the last file read before compaction.
    expect(afterText).toContain(`file ${summaryAt} line with some words`);
    expect(afterText).not.toContain('file 1 line with some words');
    // Below the threshold again (80% of 8,000 tokens, at about 4 characters a token).
    expect(after.bytes).toBeLessThan(8_000 * 0.8 * 4);
    expect(after.bytes).toBeLessThan(chats[summaryAt - 1]!.bytes);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });

    const next = await runBeans(['-p', 'and now?', '-m', 'tiny:latest', '--continue'], { cwd: repo.dir, env });
    expect(next.code).toBe(0);
    const resumed = JSON.stringify(server.requests.filter((r) => r.kind === 'chat').at(-1)!.body);
    expect(resumed).toContain('SUMMARY: read big1 to big3');
    expect(resumed).not.toContain('file 1 line with some words');
  });
});
