// Which tool vocabulary -o stream-json speaks: Beans' by default, Claude Code's with --tool-names claude
// (the SDK protocol always uses Claude's; test/e2e/agent-sdk.test.ts covers that with the real SDK).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

async function toolUses(extra: string[]) {
  const repo = makeTempRepo();
  const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'a\n' } }] }, { text: 'done' }] });
  const run = await runBeans(['-p', 'write a', '-o', 'stream-json', '--yolo', ...extra], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
  });
  expect(run.code).toBe(0);
  const lines = parseJsonLines(run.stdout) as {
    type: string;
    subtype?: string;
    tools?: string[];
    message?: { content: { type: string; name?: string; input?: unknown }[] };
  }[];
  const uses = lines.flatMap((line) =>
    line.type === 'assistant' ? line.message!.content.filter((b) => b.type === 'tool_use').map((b) => [b.name, b.input]) : [],
  );
  return { repo, uses, tools: lines[0]!.tools! };
}

describe('-o stream-json tool names', () => {
  it("keeps Beans' names without --tool-names", async () => {
    const { uses, tools } = await toolUses([]);
    expect(uses).toEqual([['write_file', { path: 'a.txt', content: 'a\n' }]]);
    expect(tools).toContain('write_file');
  });

  it("speaks Claude Code's with --tool-names claude", async () => {
    const { repo, uses, tools } = await toolUses(['--tool-names', 'claude']);
    expect(uses).toEqual([['Write', { file_path: path.join(repo.dir, 'a.txt'), content: 'a\n' }]]);
    expect(tools).toEqual(expect.arrayContaining(['Write', 'Bash', 'Read']));
    expect(tools).not.toContain('write_file');
  });
});
