import { afterEach, describe, expect, it, vi } from 'vitest';

// RFC 4122 version 4: the version nibble is 4, the variant bits are 10 (8, 9, a or b).
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.doUnmock('node:fs');
  vi.resetModules();
});

describe('random ids made without node:crypto', () => {
  it('makes RFC 4122 version 4 uuids, all different', async () => {
    const { randomUuid } = await import('../src/random-ids.js');
    const ids = Array.from({ length: 2000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives the random hex digits asked for', async () => {
    const { randomHex } = await import('../src/random-ids.js');
    expect(randomHex(3)).toMatch(/^[0-9a-f]{6}$/);
    expect(randomHex(40)).toMatch(/^[0-9a-f]{80}$/);
    const many = new Set(Array.from({ length: 500 }, () => randomHex(8)));
    expect(many.size).toBe(500);
  });

  it('reads the bytes from /dev/urandom and never loads node:crypto for them', async () => {
    const opened: string[] = [];
    vi.doMock('node:fs', async (original) => {
      const fs = await original<typeof import('node:fs')>();
      return { ...fs, openSync: (...args: Parameters<typeof fs.openSync>) => (opened.push(String(args[0])), fs.openSync(...args)) };
    });
    const getBuiltin = vi.spyOn(process, 'getBuiltinModule');
    const { randomUuid } = await import('../src/random-ids.js');
    expect(randomUuid()).toMatch(UUID_V4);
    expect(opened).toEqual(['/dev/urandom']);
    expect(getBuiltin.mock.calls.filter(([id]) => id === 'node:crypto')).toEqual([]);
    getBuiltin.mockRestore();
  });

  it('falls back to node:crypto where the random device cannot be read, and stops trying it', async () => {
    let attempts = 0;
    vi.doMock('node:fs', async (original) => {
      const fs = await original<typeof import('node:fs')>();
      return {
        ...fs,
        openSync: () => {
          attempts++;
          throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
        },
      };
    });
    const { randomHex, randomUuid } = await import('../src/random-ids.js');
    const ids = Array.from({ length: 100 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(100);
    expect(randomHex(3)).toMatch(/^[0-9a-f]{6}$/);
    expect(attempts).toBe(process.platform === 'win32' ? 0 : 1);
  });
});
