import { appendFileSync, utimesSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { storedPrompts } from '../../src/session/prompt-history.js';
import { SessionStore } from '../../src/session/session-store.js';
import { assistant, header, tempDir, toolResult, user } from './session-fixtures.js';

let t: ReturnType<typeof tempDir>;
afterEach(() => t?.cleanup());

describe('storedPrompts (Ctrl+R in the chat)', () => {
  it('lists what the user typed across sessions, newest first, each text once', async () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    const older = store.create(header);
    older.append(user('fix the login bug', { timestamp: 1000 }));
    older.append(assistant('Done.'));
    older.append(user('add a test for it', { timestamp: 2000 }));
    older.append(user('the deploy checklist body', { origin: 'skill', timestamp: 2500 }));
    older.close();
    const newer = store.create(header);
    newer.append(user('Review pull request 42 carefully.', { origin: 'command', display: '/review 42', timestamp: 3000 }));
    newer.append(assistant('', [{ id: 'c1', name: 'read_file' }]));
    newer.append(toolResult('c1', 'read_file', '{"type":"message","message":{"role":"user","content":"not typed"}}'));
    newer.append(user('queued while it worked', { origin: 'steering', timestamp: 4000 }));
    newer.append(user('fix the login bug', { timestamp: 5000 }));
    newer.close();
    // A crash mid-write leaves half a line; it is skipped.
    appendFileSync(store.pathOf(newer.id), '{"type":"message","message":{"role":"user","content":"half');

    expect(await storedPrompts(t.dir)).toEqual([
      { text: 'fix the login bug', timestamp: 5000 },
      { text: 'queued while it worked', timestamp: 4000 },
      { text: '/review 42', timestamp: 3000 },
      { text: 'add a test for it', timestamp: 2000 },
    ]);
  });

  it('reads the newest sessions first and stops at the limit', async () => {
    t = tempDir();
    const store = new SessionStore(t.dir);
    for (const [index, prompt] of ['first ever', 'second', 'third'].entries()) {
      const writer = store.create(header);
      writer.append(user(prompt, { timestamp: 1000 * (index + 1) }));
      writer.close();
      const when = new Date(Date.now() - (3 - index) * 60_000);
      utimesSync(store.pathOf(writer.id), when, when);
    }
    expect((await storedPrompts(t.dir, 2)).map((prompt) => prompt.text)).toEqual(['third', 'second']);
    expect(await storedPrompts(`${t.dir}/missing`)).toEqual([]);
  });
});
