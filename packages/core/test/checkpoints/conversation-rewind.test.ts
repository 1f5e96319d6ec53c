import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/session/session-store.js';
import { checkpointRows, findUserTurn, userTurns } from '../../src/checkpoints/index.js';
import { tempDir } from './harness.js';

describe('conversation rewind in the session log', () => {
  it('a rewind marker cuts the loaded conversation at that user message; the lines stay in the file', () => {
    const store = new SessionStore(tempDir());
    const writer = store.create({ cwd: '/w', workspaceRoot: '/w', provider: 'ollama', model: 'm' });
    writer.append({ role: 'user', content: 'first', uuid: 'aaaa-1', timestamp: 1 });
    writer.append({ role: 'assistant', content: 'one', toolCalls: [], timestamp: 2 });
    writer.append({ role: 'user', content: 'second', uuid: 'bbbb-2', timestamp: 3 });
    writer.append({ role: 'assistant', content: 'two', toolCalls: [], timestamp: 4 });
    writer.appendMeta({ kind: 'rewind', uuid: 'bbbb-2' });
    writer.append({ role: 'user', content: 'second, again', uuid: 'cccc-3', timestamp: 5 });
    writer.close();
    const loaded = store.load(writer.id);
    expect(loaded.messages.map((message) => (message.role === 'note' ? '' : message.content))).toEqual(['first', 'one', 'second, again']);
    expect(userTurns(loaded.messages).map((turn) => turn.uuid)).toEqual(['aaaa-1', 'cccc-3']);
  });

  it('finds user messages by uuid or unique prefix and lists them even when they changed nothing', async () => {
    const messages = [
      { role: 'user' as const, content: 'hello', uuid: 'abc-1', timestamp: 1 },
      { role: 'user' as const, content: 'skill body', uuid: 'abd-2', origin: 'skill' as const, timestamp: 2 },
      { role: 'user' as const, content: '/review expanded', display: '/review 42', uuid: 'xyz-3', timestamp: 3 },
    ];
    expect(findUserTurn(messages, 'ab').uuid).toBe('abc-1');
    expect(() => findUserTurn(messages, 'nope')).toThrow(/No user message nope/);
    const rows = await checkpointRows(undefined, messages);
    expect(rows.map((row) => [row.id, row.text, row.files.length])).toEqual([
      ['abc-1', 'hello', 0],
      ['xyz-3', '/review 42', 0],
    ]);
  });
});
