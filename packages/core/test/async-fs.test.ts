import fsp from 'node:fs/promises';
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as asyncFs from '../src/async-fs.js';

// What a call settles to, comparable across the two implementations.
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() };
  } catch (error) {
    const { code, syscall, path: errorPath, message } = error as NodeJS.ErrnoException;
    return { error: { code, syscall, path: errorPath, message, type: (error as Error).constructor.name } };
  }
}

function scratch(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-async-fs-'));
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub', 'a.txt'), 'héllo\n');
  writeFileSync(path.join(dir, 'b.bin'), Buffer.from([0, 1, 2, 255]));
  symlinkSync(path.join(dir, 'sub', 'a.txt'), path.join(dir, 'link'));
  symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
  return dir;
}

describe('async-fs: node:fs/promises without loading it at start', () => {
  it('reads and looks up exactly as node:fs/promises does, errors included', async () => {
    const dir = scratch();
    const file = path.join(dir, 'sub', 'a.txt');
    const cases: [string, (fs: typeof fsp) => Promise<unknown>][] = [
      ['readFile utf8', (fs) => fs.readFile(file, 'utf8')],
      ['readFile buffer', (fs) => fs.readFile(path.join(dir, 'b.bin'))],
      ['readFile options', (fs) => fs.readFile(file, { encoding: 'utf8' })],
      ['readFile missing', (fs) => fs.readFile(path.join(dir, 'missing'))],
      ['readFile a folder', (fs) => fs.readFile(dir)],
      ['readFile through a file', (fs) => fs.readFile(path.join(file, 'x'))],
      ['stat size', (fs) => fs.stat(file).then((s) => [s.size, s.isFile(), s.isDirectory()])],
      ['stat bigint', (fs) => fs.stat(file, { bigint: true }).then((s) => typeof s.size)],
      ['stat dangling', (fs) => fs.stat(path.join(dir, 'dangling'))],
      ['lstat link', (fs) => fs.lstat(path.join(dir, 'link')).then((s) => s.isSymbolicLink())],
      ['lstat missing', (fs) => fs.lstat(path.join(dir, 'missing'))],
      ['realpath link', (fs) => fs.realpath(path.join(dir, 'link'))],
      ['realpath dangling', (fs) => fs.realpath(path.join(dir, 'dangling'))],
      ['readlink', (fs) => fs.readlink(path.join(dir, 'link'))],
      ['readlink a file', (fs) => fs.readlink(file)],
      ['readdir', (fs) => fs.readdir(dir).then((names) => names.sort())],
      [
        'readdir types',
        (fs) => fs.readdir(dir, { withFileTypes: true }).then((entries) => entries.map((e) => [e.name, e.isDirectory(), e.isSymbolicLink()]).sort()),
      ],
      ['readdir recursive', (fs) => fs.readdir(dir, { recursive: true }).then((names) => names.sort())],
      ['readdir missing', (fs) => fs.readdir(path.join(dir, 'missing'))],
    ];
    for (const [name, call] of cases) {
      expect(await outcome(() => call(asyncFs as unknown as typeof fsp)), name).toEqual(await outcome(() => call(fsp)));
    }
  });

  it('hands writes and file handles to node:fs/promises', async () => {
    const dir = scratch();
    await asyncFs.mkdir(path.join(dir, 'new', 'deep'), { recursive: true });
    await asyncFs.writeFile(path.join(dir, 'new', 'deep', 'f.txt'), 'one');
    await asyncFs.rename(path.join(dir, 'new', 'deep', 'f.txt'), path.join(dir, 'new', 'g.txt'));
    const handle = await asyncFs.open(path.join(dir, 'new', 'g.txt'), 'r');
    try {
      expect(await handle.readFile('utf8')).toBe('one');
    } finally {
      await handle.close();
    }
    await asyncFs.rm(path.join(dir, 'new'), { recursive: true });
    expect(await outcome(() => asyncFs.stat(path.join(dir, 'new')))).toMatchObject({ error: { code: 'ENOENT' } });
  });
});
