import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beansToolNameOf, CLAUDE_TOOL_NAMES, claudeToolName, matcherCovers } from '../../src/claude/vocabulary.js';
import { loadPlugins } from '../../src/plugins/index.js';
import { agentToolNames, beansToolRule } from '../../src/plugins/tool-names.js';
import { parseInlineAgents, subagentList } from '../../src/subagents/index.js';
import { builtinTools } from '../../src/tools/builtin.js';
import { toolSearchTool } from '../../src/tools/tool-search.js';

// Issue 52, item 3: one table (claude/vocabulary.ts) translates Claude Code's tool names, and every
// reader of them (hooks, the SDK protocol, --allowedTools, plugins' agents and commands) asks it.
describe("Claude Code's tool vocabulary", () => {
  it('every tool name round-trips both ways, and every other Claude Code name reaches the same tool', () => {
    expect(CLAUDE_TOOL_NAMES.length).toBeGreaterThan(15);
    for (const { beans, claude, alsoCalled } of CLAUDE_TOOL_NAMES) {
      expect(claudeToolName(beans), beans).toBe(claude);
      expect(beansToolNameOf(claude), claude).toBe(beans);
      expect(beansToolNameOf(claude.toLowerCase()), claude).toBe(beans);
      // Beans' own name passes through the Claude reader unchanged (an agent may list either).
      expect(beansToolNameOf(beans), beans).toBe(beans);
      for (const other of alsoCalled) {
        expect(beansToolNameOf(other), other).toBe(beans);
        expect(claudeToolName(beansToolNameOf(other)), other).toBe(claude);
      }
    }
    // Two Beans tools never share a Claude Code name.
    const claudeNames = CLAUDE_TOOL_NAMES.flatMap(({ claude, alsoCalled }) => [claude, ...alsoCalled].map((name) => name.toLowerCase()));
    expect(new Set(claudeNames).size).toBe(claudeNames.length);
  });

  it('names the background-task tools as Claude Code 2.1 does, and reads the older names', () => {
    expect(claudeToolName('shell_output')).toBe('TaskOutput');
    expect(claudeToolName('kill_shell')).toBe('TaskStop');
    expect(claudeToolName('tool_search')).toBe('ToolSearch');
    expect(CLAUDE_TOOL_NAMES.find((entry) => entry.beans === 'shell_output')?.alsoCalled).toEqual(['BashOutput']);
    expect(CLAUDE_TOOL_NAMES.find((entry) => entry.beans === 'kill_shell')?.alsoCalled).toEqual(['KillShell']);
  });

  it('every built-in tool Claude Code has an equivalent of is in the table; the others pass through', () => {
    const names = [...builtinTools({}).map((tool) => tool.name), toolSearchTool.name];
    const beansOwn = names.filter((name) => claudeToolName(name) === name);
    // Beans' own tools: Claude Code has none of these, so both vocabularies use Beans' name.
    expect(beansOwn.sort()).toEqual(['memory']);
    expect(claudeToolName('mcp__docs__search')).toBe('mcp__docs__search');
    expect(beansToolNameOf('mcp__docs__search')).toBe('mcp__docs__search');
  });

  it("plugins' tool lists and rules translate through the same table", () => {
    for (const { beans, claude, alsoCalled } of CLAUDE_TOOL_NAMES) {
      expect(agentToolNames([claude])).toEqual([beans]);
      for (const other of alsoCalled) expect(agentToolNames([other])).toEqual([beans]);
      expect(beansToolRule(`${claude}(x:*)`)).toBe(`${beans}(x *)`);
    }
    expect(agentToolNames(['Bash', 'TaskOutput', 'TaskStop', 'BashOutput', 'KillShell', 'ToolSearch'])).toEqual([
      'shell',
      'shell_output',
      'kill_shell',
      'tool_search',
    ]);
  });

  it('a hook matcher written with an older Claude Code name covers the tool (matchers accept both vocabularies)', () => {
    expect(matcherCovers('BashOutput', 'shell_output')).toBe(true);
    expect(matcherCovers('TaskOutput|TaskStop', 'kill_shell')).toBe(true);
    expect(matcherCovers('MultiEdit', 'edit_file')).toBe(true);
    expect(matcherCovers('Bash', 'shell_output')).toBe(false);
  });

  describe('an agent file listing the background-task tools and ToolSearch', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'beans-vocabulary-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('is translated: its tools are the Beans tools they name', async () => {
      mkdirSync(path.join(root, 'watcher', 'agents'), { recursive: true });
      writeFileSync(
        path.join(root, 'watcher', 'agents', 'watcher.md'),
        '---\nname: watcher\ndescription: Watches a dev server\ntools: Bash, TaskOutput, TaskStop, BashOutput, KillShell, ToolSearch\n---\nWatch it.\n',
      );
      const catalog = await loadPlugins({ roots: [root] });
      expect(catalog.plugins[0]!.agents.find((agent) => agent.name === 'watcher')?.tools).toEqual(['shell', 'shell_output', 'kill_shell', 'tool_search']);
    });

    it('and so is an inline agent (--agents)', () => {
      const inline = parseInlineAgents({ watcher: { description: 'Watches', prompt: 'Watch it.', tools: ['Bash', 'TaskOutput', 'KillShell'] } });
      const agent = subagentList({ agents: () => [] }, inline).find((definition) => definition.name === 'watcher');
      expect(agent!.tools).toEqual(['shell', 'shell_output', 'kill_shell']);
    });
  });
});
