import { describe, expect, it } from 'vitest';
import { DeferredTools, deferredToolsListing } from '../../src/tools/deferred-tools.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineJsonSchemaTool, type AnyTool } from '../../src/tools/tool.js';
import { toolSearchTool } from '../../src/tools/tool-search.js';
import { createToolSessionState } from '../../src/tools/tool.js';

const tool = (name: string, description: string): AnyTool =>
  defineJsonSchemaTool({ name, description, kind: 'execute', inputSchema: { type: 'object', properties: {} }, execute: async () => ({ content: name }) });

function setup() {
  const registry = new ToolRegistry([
    tool('read_file', 'Read a file.'),
    tool('mcp__gh__create_issue', 'Create a GitHub issue.'),
    tool('mcp__gh__list_pull_requests', 'List pull requests; each links its issue.'),
    tool('mcp__db__run_query', 'Run an SQL query against the database.'),
  ]);
  const deferred = new DeferredTools(['mcp__gh__create_issue', 'mcp__gh__list_pull_requests', 'mcp__db__run_query'], (name) => registry.get(name));
  registry.register(toolSearchTool);
  registry.deferral = deferred;
  return { registry, deferred };
}

describe('deferred tools', () => {
  it('declares the others first and each loaded tool after them in load order, once', () => {
    const { registry, deferred } = setup();
    expect(registry.declarations().map((d) => d.name)).toEqual(['read_file', 'tool_search']);
    const before = JSON.stringify(registry.declarations());
    expect(deferred.load(['mcp__db__run_query', 'nope', 'read_file'])).toEqual(['mcp__db__run_query']);
    expect(deferred.load(['mcp__gh__create_issue', 'mcp__db__run_query'])).toEqual(['mcp__gh__create_issue']);
    const after = registry.declarations();
    expect(after.map((d) => [d.name, d.deferLoading])).toEqual([
      ['read_file', undefined],
      ['tool_search', undefined],
      ['mcp__db__run_query', true],
      ['mcp__gh__create_issue', true],
    ]);
    expect(JSON.stringify(after.slice(0, 2))).toBe(before);
    expect(deferred.isPending('mcp__gh__list_pull_requests')).toBe(true);
    expect(deferred.isPending('mcp__gh__create_issue')).toBe(false);
  });

  it('ranks a name match above a description match, and tells listeners what was loaded', () => {
    const { deferred } = setup();
    const heard: string[][] = [];
    deferred.onLoad((names) => heard.push(names));
    expect(deferred.search('issue', 5).map((t) => t.name)).toEqual(['mcp__gh__create_issue', 'mcp__gh__list_pull_requests']);
    expect(deferred.search('sql database', 5).map((t) => t.name)).toEqual(['mcp__db__run_query']);
    expect(deferred.search('weather', 5)).toEqual([]);
    deferred.load(['mcp__db__run_query']);
    deferred.load(['mcp__gh__create_issue'], true);
    expect(heard).toEqual([['mcp__db__run_query']]);
  });

  it('tool_search loads by select: and by keywords, and says when nothing matched', async () => {
    const { deferred } = setup();
    const context = { signal: new AbortController().signal, workspace: {} as never, state: createToolSessionState(), deferredTools: deferred };
    const selected = await toolSearchTool.execute({ query: 'select:mcp__db__run_query,mcp__nope' }, context);
    expect(selected.content).toContain('Loaded: mcp__db__run_query.');
    expect(selected.content).toContain('Not deferred tools: mcp__nope');
    expect(selected.metadata).toEqual({ anthropic: { toolReferences: ['mcp__db__run_query'] } });
    const searched = await toolSearchTool.execute({ query: 'pull requests', max_results: 1 }, context);
    expect(searched.content).toContain('- mcp__gh__list_pull_requests: List pull requests');
    expect(deferred.loaded()).toEqual(['mcp__db__run_query', 'mcp__gh__list_pull_requests']);
    expect((await toolSearchTool.execute({ query: 'weather' }, context)).content).toBe('No deferred tool matches "weather".');
    expect((await toolSearchTool.execute({ query: 'x' }, { ...context, deferredTools: undefined })).isError).toBe(true);
  });

  it('lists the names one a line after a short explanation', () => {
    expect(deferredToolsListing([])).toBe('');
    expect(deferredToolsListing(['mcp__a__b', 'mcp__a__c']).split('\n').slice(-2)).toEqual(['mcp__a__b', 'mcp__a__c']);
    // A described server's line goes before its first tool; `a__b` is not taken for `a`.
    const servers = [{ name: 'a', description: 'Server A.' }, { name: 'a__b', description: 'Server AB.' }, { name: 'c' }];
    expect(deferredToolsListing(['mcp__a__x', 'mcp__a__y', 'mcp__a__b__z', 'mcp__c__w'], servers).split('\n').slice(2)).toEqual([
      'a server: Server A.',
      'mcp__a__x',
      'mcp__a__y',
      'a__b server: Server AB.',
      'mcp__a__b__z',
      'mcp__c__w',
    ]);
  });
});
