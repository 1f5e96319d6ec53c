// Issue 41: a notebook read with read_file and edited with notebook_edit through bin/beans, with the
// permissions of any edit; --tool-names claude shows the call as Claude Code's NotebookEdit.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeNotebook, makePng } from '../support/media.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, parseJsonLines, runBeans } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const PNG = makePng(12, 10);
const fix = { name: 'notebook_edit', args: { path: 'analysis.ipynb', cell_id: 'boom', new_source: '1 / 2' } };

describe('notebook_edit through bin/beans', () => {
  it('reads the notebook (its plot as a picture), replaces the failing cell, and the file stays a valid notebook', async () => {
    const models = [{ name: 'scripted:latest', capabilities: ['completion', 'tools', 'vision'] }];
    const server = await startScriptedOllama({
      models,
      turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'analysis.ipynb' } }] }, { toolCalls: [fix] }, { text: 'Fixed cell boom.' }],
    });
    servers.push(server);
    const repo = makeTempRepo({ 'analysis.ipynb': makeNotebook(PNG) });
    const run = await runBeans(
      ['-p', 'why does cell 3 fail? fix it', '--permission-mode', 'auto-edit', '-o', 'stream-json', '--verbose', '--tool-names', 'claude'],
      { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } },
    );
    expect(run.code, run.stderr).toBe(0);
    const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => JSON.stringify(request.body));
    expect(chats[1]).toContain('ZeroDivisionError: division by zero');
    expect(chats[1]).toContain(PNG.toString('base64'));
    expect(chats[2]).toContain('Replaced the source of cell boom in analysis.ipynb.');
    const notebook = JSON.parse(readFileSync(path.join(repo.dir, 'analysis.ipynb'), 'utf8')) as { cells: Record<string, unknown>[] };
    expect(notebook.cells.map((cell) => cell.id)).toEqual(['intro', 'load', 'boom', 'plot']);
    expect(notebook.cells[2]).toMatchObject({ source: ['1 / 2'], outputs: [], execution_count: null });
    const uses = parseJsonLines(run.stdout).flatMap((line) =>
      ((line.message as { content?: { type: string; name?: string; input?: Record<string, unknown> }[] })?.content ?? []).filter(
        (block) => block.type === 'tool_use',
      ),
    );
    expect(uses.map((use) => use.name)).toEqual(['Read', 'NotebookEdit']);
    expect(uses[1]!.input).toMatchObject({ notebook_path: path.join(repo.dir, 'analysis.ipynb'), cell_id: 'boom', new_source: '1 / 2' });
  });

  it('asks like any edit: in the default mode a one-shot run cannot ask, so nothing changes', async () => {
    const server = await startScriptedOllama({ turns: [{ toolCalls: [fix] }, { text: 'could not' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'analysis.ipynb': makeNotebook(PNG) });
    const run = await runBeans(['-p', 'fix cell boom'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(repo.dir, 'analysis.ipynb'), 'utf8')).toBe(makeNotebook(PNG));
  });
});
