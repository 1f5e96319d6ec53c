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

// Issue 52, item 3: an agent file written for Claude Code 2.1 names the background-task tools
// TaskOutput and TaskStop (older: BashOutput, KillShell) and may list ToolSearch; they were not
// translated, so the agent ran without them.
describe("an agent's tools: list in Claude Code's names", () => {
  it('gives the agent the Beans tools those names stand for', async () => {
    const repo = makeTempRepo({
      'plugins/watch/agents/watcher.md':
        '---\nname: watcher\ndescription: Watches a dev server\ntools: Read, Bash, TaskOutput, TaskStop, BashOutput, KillShell, ToolSearch\n---\nWatch it.\n',
    });
    const server = await scriptedOllama({ turns: [{ text: 'done' }] });
    const run = await runBeans(['-p', 'hi', '-o', 'stream-json', '--agent-profile', 'watcher'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
    });
    expect(run.code).toBe(0);
    const init = parseJsonLines(run.stdout)[0] as { tools: string[] };
    // tool_search is declared only when MCP tools are deferred; the rest are the agent's.
    expect([...init.tools].sort()).toEqual(['kill_shell', 'read_file', 'shell', 'shell_output']);
  });
});
