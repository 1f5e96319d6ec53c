import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setTrustDecision } from '../../src/config/trust.js';
import { answerTrustQuestion, approveDeclaration, decideWorkspaceTrust, trustFolder, trustQuestion } from '../../src/runtime/workspace-trust.js';
import { tempHome } from '../config/temp-home.js';

// Issue 52, item 2: one decision, in core; front ends only render its questions and hand the answers back.
let t: ReturnType<typeof tempHome>;
afterEach(() => t?.cleanup());

const server = (file: string) => ({ command: 'touch', args: [file] });
const sources = () => ({ workspaceRoot: t.workspace, env: t.env, plugins: [] });

describe('decideWorkspaceTrust', () => {
  it('undecided, untrusted, trusted and --trust: what runs, and why', async () => {
    t = tempHome();
    t.write(path.join(t.workspace, '.mcp.json'), { mcpServers: { first: server('a') } });
    expect(await decideWorkspaceTrust(sources())).toMatchObject({ trusted: false, basis: 'undecided', unapproved: [], warnings: [] });
    expect(await decideWorkspaceTrust({ ...sources(), trustFlag: true })).toMatchObject({ trusted: true, basis: 'flag', unapproved: [] });
    await setTrustDecision(t.workspace, 'untrusted', t.env);
    expect(await decideWorkspaceTrust(sources())).toMatchObject({ trusted: false, basis: 'untrusted' });
    expect((await trustFolder(t.workspace, t.env)).declarations).toBe(1);
    expect(await decideWorkspaceTrust(sources())).toMatchObject({ trusted: true, basis: 'trusted', unapproved: [], skipStatusLine: false });
  });

  it('a trusted folder: what it declared since is left out, named in one warning, until approved', async () => {
    t = tempHome();
    t.write(path.join(t.workspace, '.mcp.json'), { mcpServers: { first: server('a') } });
    await trustFolder(t.workspace, t.env);
    t.write(path.join(t.workspace, '.mcp.json'), { mcpServers: { first: server('a'), added: server('b') } });
    t.write(t.workspaceFile, { statusLine: { type: 'command', command: 'echo hi' } });
    const trust = await decideWorkspaceTrust(sources());
    expect(trust.unapproved.map((d) => [d.kind, d.name])).toEqual([
      ['MCP server', 'added'],
      ['status line', 'statusLine'],
    ]);
    const entry = (name: string, file: string) => ({ name, config: { transport: 'stdio' as const, command: 'touch', args: [file], env: {} } });
    expect(trust.skipServer(entry('added', 'b'))).toBe(true);
    expect(trust.skipServer(entry('first', 'a'))).toBe(false);
    expect(trust.skipStatusLine).toBe(true);
    expect(trust.warnings).toHaveLength(1);
    expect(trust.warnings[0]).toContain('MCP server added (.mcp.json): touch b');
    // --trust runs everything for that run.
    expect((await decideWorkspaceTrust({ ...sources(), trustFlag: true })).unapproved).toEqual([]);
  });
});

describe('trustQuestion', () => {
  it('asks the folder question once, records the answer, then has nothing to ask', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { permissions: { mode: 'yolo' } });
    t.write(path.join(t.workspace, 'plugins', 'tools', '.mcp.json'), { mcpServers: { tools: server('c') } });
    t.write(path.join(t.workspace, 'plugins', 'tools', 'commands', 'hi.md'), 'hi\n');
    const question = await trustQuestion({ cwd: t.workspace, env: t.env });
    expect(question?.kind).toBe('folder');
    if (question?.kind !== 'folder') throw new Error('expected the folder question');
    expect(question.requests.map((request) => request.key)).toEqual(['permissions.mode', 'MCP server tools']);
    expect(await trustQuestion({ cwd: t.workspace, env: t.env, trusted: true })).toBeUndefined();
    expect(await answerTrustQuestion(question, 'not-now', t.env)).toBe(false);
    expect((await trustQuestion({ cwd: t.workspace, env: t.env }))?.kind).toBe('folder');
    expect(await answerTrustQuestion(question, 'trust', t.env)).toBe(true);
    expect(await trustQuestion({ cwd: t.workspace, env: t.env })).toBeUndefined();
  });

  it('a trusted folder that declares something new asks about each; an approved one runs', async () => {
    t = tempHome();
    t.write(path.join(t.workspace, '.mcp.json'), { mcpServers: { first: server('a') } });
    await trustFolder(t.workspace, t.env);
    t.write(path.join(t.workspace, '.mcp.json'), { mcpServers: { first: server('a'), added: server('b') } });
    const question = await trustQuestion({ cwd: t.workspace, env: t.env });
    if (question?.kind !== 'approval') throw new Error('expected the approval question');
    expect(question.declarations.map((d) => d.name)).toEqual(['added']);
    await approveDeclaration(question, question.declarations[0]!, t.env);
    expect(await trustQuestion({ cwd: t.workspace, env: t.env })).toBeUndefined();
    expect((await decideWorkspaceTrust(sources())).unapproved).toEqual([]);
  });

  it('"Don\'t trust" is recorded: never asked again, and nothing of the folder runs', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { permissions: { allow: ['shell'] } });
    const question = await trustQuestion({ cwd: t.workspace, env: t.env });
    if (question?.kind !== 'folder') throw new Error('expected the folder question');
    expect(await answerTrustQuestion(question, 'untrust', t.env)).toBe(false);
    expect(await trustQuestion({ cwd: t.workspace, env: t.env })).toBeUndefined();
    expect((await decideWorkspaceTrust(sources())).basis).toBe('untrusted');
  });
});
