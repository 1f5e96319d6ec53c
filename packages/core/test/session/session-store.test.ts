import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentMessage } from '../../src/agent/types.js';
import { UsageError } from '../../src/errors.js';
import { SessionLookupError, SessionStore } from '../../src/session/session-store.js';
import { assistant, header, tempDir, toolResult, user } from './session-fixtures.js';

let t: ReturnType<typeof tempDir>;
afterEach(() => t?.cleanup());

function conversation(): AgentMessage[] {
  return [
    user('Fix the failing test in src/a.ts'),
    assistant('Let me look.', [{ id: 'c1', name: 'read_file', arguments: { path: 'src/a.ts' } }]),
    { ...toolResult('c1', 'read_file', '1\tconst a = 1;\n2\t"quoted" \u2028 line'), details: { kind: 'shell', exitCode: 0, timedOut: false } },
    assistant('Fixed it.'),
    { role: 'note', kind: 'info', text: 'Model switched', timestamp: 5 },
  ];
}

/** Sets a session file's mtime so "most recent activity" is deterministic. */
function touch(store: SessionStore, id: string, secondsAgo: number) {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(store.pathOf(id), when, when);
}

describe('SessionStore: writing and loading', () => {
  it('loads back exactly what was appended, with the header', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create({ ...header, startedAt: new Date('2026-01-02T03:04:05Z') });
    const messages = conversation();
    for (const m of messages) writer.append(m);
    writer.close();

    const loaded = store.load(writer.id);
    expect(loaded.header).toMatchObject({ type: 'session', id: writer.id, version: 1, ...header, startedAt: '2026-01-02T03:04:05.000Z' });
    expect(loaded.messages).toEqual(messages);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.provider).toBe('ollama');
    expect(loaded.model).toBe('qwen3');
    expect(writer.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('writes one JSON line per record, the header first', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('hello\nworld'));
    writer.appendMeta({ kind: 'sop', sop: 'Always run the tests.' });
    const lines = readFileSync(writer.path, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(JSON.parse(lines[0]).type).toBe('session');
    expect(JSON.parse(lines[1])).toMatchObject({ type: 'message', message: { role: 'user', content: 'hello\nworld' } });
    expect(JSON.parse(lines[2])).toMatchObject({ type: 'meta', kind: 'sop', sop: 'Always run the tests.' });
    writer.close();
  });

  it('creates the file with the first record, private to the user, and not before', () => {
    t = tempDir();
    const store = new SessionStore(path.join(t.dir, 'nested', 'sessions'));
    const writer = store.create(header);
    expect(existsSync(writer.path)).toBe(false);
    writer.close();
    expect(store.list()).toEqual([]);

    const second = store.create(header);
    second.append(user('hi'));
    expect(existsSync(second.path)).toBe(true);
    expect(statSync(second.path).mode & 0o777).toBe(0o600);
    second.close();
  });

  it('has each appended line on disk as soon as append returns', () => {
    t = tempDir();
    const writer = new SessionStore(t.dir).create(header);
    writer.append(user('one'));
    expect(readFileSync(writer.path, 'utf8')).toContain('"content":"one"');
    writer.append(assistant('two'));
    expect(readFileSync(writer.path, 'utf8')).toContain('"content":"two"');
    writer.close();
  });

  it('hands out new ids that are UUIDs (as the Claude Agent SDK expects) and create sessions under that id', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const id = store.newId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const writer = store.create({ ...header, id });
    writer.append(user('hi'));
    writer.close();
    expect(store.list().map((s) => s.id)).toEqual([id]);
    expect(() => store.create({ ...header, id })).toThrow(/already exists/);
  });

  it('refuses to append after close', () => {
    t = tempDir();
    const writer = new SessionStore(t.dir).create(header);
    writer.append(user('one'));
    writer.close();
    expect(() => writer.append(user('two'))).toThrow(/closed/);
  });

  it('keeps appending to an existing session after open()', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const first = store.create(header);
    first.append(user('first run'));
    first.append(assistant('answer one'));
    first.close();

    const again = store.open(first.id);
    again.append(user('second run'));
    again.close();
    expect(store.load(first.id).messages.map((m) => (m as { content: string }).content)).toEqual(['first run', 'answer one', 'second run']);
  });

  it('restores model switches and the SOP from meta lines', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('hi'));
    writer.appendMeta({ kind: 'model', provider: 'gemini', model: 'gemini-2.5-flash' });
    writer.appendMeta({ kind: 'sop', sop: 'Be brief.' });
    writer.close();
    const loaded = store.load(writer.id);
    expect(loaded).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-flash', sop: 'Be brief.' });
    expect(loaded.meta.map((m) => m.kind)).toEqual(['model', 'sop']);
    expect(store.list()[0]).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-flash' });
  });
});

describe('SessionStore: damaged files', () => {
  it('skips a last line cut off mid-write, with a warning, and loads the rest', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('kept'));
    writer.append(assistant('also kept'));
    writer.close();
    appendFileSync(writer.path, '{"type":"message","message":{"role":"assistant","content":"cut');

    const loaded = store.load(writer.id);
    expect(loaded.messages).toHaveLength(2);
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toMatch(/last line .* cut off mid-write/);
    expect(store.list()[0].messageCount).toBe(2);
  });

  it('skips any unreadable line in the middle, naming its line number', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('one'));
    appendFileSync(writer.path, 'garbage\n{"type":"message","message":{"role":"robot"}}\n');
    writer.append(assistant('two'));
    writer.close();
    const loaded = store.load(writer.id);
    expect(loaded.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(loaded.warnings).toEqual([expect.stringContaining('line 3'), expect.stringContaining('line 4')]);
  });

  it('skips a line that is valid JSON but not an object (null, a number, a string) as damaged (issue 43)', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('one'));
    appendFileSync(writer.path, 'null\n7\n"x"\nfalse\n');
    writer.append(assistant('two'));
    writer.close();
    const loaded = store.load(writer.id);
    expect(loaded.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(loaded.warnings).toEqual([3, 4, 5, 6].map((n) => expect.stringContaining(`line ${n} of`)));
    expect(store.list()[0]!.messageCount).toBe(2);
  });

  it('starts a fresh line when resuming a session whose last line was cut off', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const writer = store.create(header);
    writer.append(user('before the crash'));
    writer.close();
    appendFileSync(writer.path, '{"type":"message","mess');

    const resumed = store.open(writer.id);
    resumed.append(user('after the resume'));
    resumed.close();
    const loaded = store.load(writer.id);
    expect(loaded.messages.map((m) => (m as { content: string }).content)).toEqual(['before the crash', 'after the resume']);
    expect(loaded.warnings).toEqual([expect.stringContaining('line 3 ')]);
  });

  it('refuses a file that is not a session', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    writeFileSync(path.join(t.dir, 'notes.jsonl'), '{"hello":1}\n');
    expect(() => store.load('notes')).toThrow(/not a Beans session/);
    expect(store.list()).toEqual([]);
  });
});

describe('SessionStore: finding sessions', () => {
  it('counts the prompts a person sent apart from the assistant messages a turn with tools makes (the picker\'s "1 turn")', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const w = store.create({ ...header, id: 'one-prompt' });
    w.append(user('fix the build'));
    w.append({ role: 'user', content: 'Skill body', origin: 'skill', display: 'loaded skill build', timestamp: 1 });
    for (const text of ['reading', 'editing', 'done']) w.append(assistant(text));
    w.close();
    expect(store.list()[0]).toMatchObject({ id: 'one-prompt', turns: 3, prompts: 1, firstPrompt: 'fix the build' });
  });

  function threeSessions(store: SessionStore) {
    const ids: string[] = [];
    const starts = ['2026-03-01T09-00-00', '2026-03-01T09-30-00', '2026-03-02T10-00-00'];
    for (const [i, start] of starts.entries()) {
      const w = store.create({
        ...header,
        id: `${start}-${['aaa111', 'bbb222', 'aab333'][i]}`,
        startedAt: new Date(start.replace(/T(\d+)-(\d+)-(\d+)/, 'T$1:$2:$3Z')),
      });
      w.append(user(`prompt ${i}`));
      w.append(assistant(`answer ${i}`));
      w.close();
      ids.push(w.id);
    }
    return ids;
  }

  it('lists sessions most recently active first with what a user needs to pick one', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const [old, middle, recent] = threeSessions(store);
    touch(store, recent, 300);
    touch(store, middle, 200);
    touch(store, old, 10); // resumed lately: now the most recently active
    const listed = store.list();
    expect(listed.map((s) => s.id)).toEqual([old, middle, recent]);
    expect(listed[0]).toMatchObject({
      id: old,
      path: store.pathOf(old),
      startedAt: '2026-03-01T09:00:00.000Z',
      turns: 1,
      prompts: 1,
      messageCount: 2,
      firstPrompt: 'prompt 0',
      provider: 'ollama',
      model: 'qwen3',
    });
    expect(Date.parse(listed[0].lastActivity)).toBeGreaterThan(Date.now() - 60_000);
    expect(store.newest()?.id).toBe(old);
  });

  it('counts turns as assistant messages and shows the first typed prompt on one short line', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const w = store.create(header);
    w.append(user('Skill body', { origin: 'skill' }));
    w.append(user('Please   refactor\nthe parser so that it handles very long inputs without quadratic blow-up in the tokenizer'));
    w.append(assistant('', [{ id: 'c1', name: 'read_file' }]));
    w.append(toolResult('c1', 'read_file'));
    w.append(assistant('Done.'));
    w.append(user('/review 42', { origin: 'command', display: '/review 42' }));
    w.close();
    const [summary] = store.list();
    expect(summary.turns).toBe(2);
    expect(summary.messageCount).toBe(6);
    expect(summary.firstPrompt).toBe('Please refactor the parser so that it handles very long inputs without…');
    expect(summary.firstPrompt.length).toBeLessThanOrEqual(80);
  });

  it('has no newest session and an empty list when the folder does not exist', () => {
    t = tempDir();
    const store = new SessionStore(path.join(t.dir, 'missing'));
    expect(store.list()).toEqual([]);
    expect(store.newest()).toBeUndefined();
  });

  it('resolves a full id, a unique prefix, or the start of the random tail', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const [old, middle, recent] = threeSessions(store);
    expect(store.resolveId(middle)).toBe(middle);
    expect(store.resolveId('2026-03-02')).toBe(recent);
    expect(store.resolveId('2026-03-01T09-3')).toBe(middle);
    expect(store.resolveId('bbb')).toBe(middle);
    expect(store.resolveId(`${old}.jsonl`)).toBe(old);
  });

  it('lists the candidates when a prefix is ambiguous', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const [old, middle, recent] = threeSessions(store);
    const error = (() => {
      try {
        store.resolveId('2026-03-01');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SessionLookupError);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as SessionLookupError).exitCode).toBe(2);
    expect((error as SessionLookupError).candidates).toEqual([middle, old]);
    expect((error as Error).message).toContain(`matches 2 sessions: ${middle}, ${old}`);
    expect(() => store.resolveId('aa')).toThrow(new RegExp(`${recent}, ${old}`));
  });

  it('says what exists when nothing matches', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const [, , recent] = threeSessions(store);
    expect(() => store.resolveId('1999')).toThrow(/No session "1999" in this workspace\. Recent ones: /);
    expect(() => store.resolveId('1999')).toThrow(new RegExp(recent));
    expect(() => new SessionStore(path.join(t.dir, 'none')).resolveId('x')).toThrow(/no sessions yet/);
    expect(() => store.load('nope')).toThrow(SessionLookupError);
  });

  it('never reads or writes outside its folder', () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    expect(() => store.load('../../etc/passwd')).toThrow(UsageError);
    expect(() => store.create({ ...header, id: '../escape' })).toThrow(UsageError);
  });
});

describe('branches and every workspace (the resume picker)', () => {
  it('records the branch checked out in the header, lists it, and lists the sessions of every workspace', () => {
    const { dir, cleanup } = tempDir();
    try {
      const repo = path.join(dir, 'repo');
      mkdirSync(path.join(repo, '.git'), { recursive: true });
      writeFileSync(path.join(repo, '.git', 'HEAD'), 'ref: refs/heads/feature/login\n');
      const here = new SessionStore(path.join(dir, 'sessions', 'repo-1'));
      const there = new SessionStore(path.join(dir, 'sessions', 'other-2'));
      const mine = here.create({ ...header, workspaceRoot: repo, cwd: repo });
      mine.append(user('on the feature'));
      mine.close();
      const theirs = there.create({ ...header, workspaceRoot: path.join(dir, 'other'), cwd: path.join(dir, 'other') });
      theirs.append(user('elsewhere'));
      theirs.close();
      expect(here.list()).toEqual([expect.objectContaining({ gitBranch: 'feature/login', workspaceRoot: repo, firstPrompt: 'on the feature' })]);
      const everywhere = here.listEveryWorkspace();
      expect(everywhere.map((summary) => summary.firstPrompt).sort()).toEqual(['elsewhere', 'on the feature']);
      expect(everywhere.find((summary) => summary.firstPrompt === 'elsewhere')).not.toHaveProperty('gitBranch');
    } finally {
      cleanup();
    }
  });
});
