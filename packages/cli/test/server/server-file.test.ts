import { lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Another `beans serve` on the same machine may write its file at any moment, even between our steps.
const between = vi.hoisted(() => ({ write: undefined as (() => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const race =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      const result = call(...args);
      const write = between.write;
      between.write = undefined;
      write?.();
      return result;
    };
  // The other server writes right after our first step past creating the folder, whatever that step is.
  return { ...real, rmSync: race(real.rmSync), writeFileSync: race(real.writeFileSync), openSync: race(real.openSync) };
});

const { readServerFile, serverFilePath, writeServerFile } = await import('../../src/server/server-file.js');

function homeEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(path.join(os.tmpdir(), 'beans-server-file-'));
  return { HOME: home, XDG_STATE_HOME: path.join(home, 'state') };
}

afterEach(() => {
  between.write = undefined;
});

describe('the local server file', () => {
  it('is written when another server writes its own file at the same moment: the newest wins, whole', () => {
    const env = homeEnv();
    const other = { url: 'http://127.0.0.1:1/', token: 'other', pid: process.pid };
    fs.mkdirSync(path.dirname(serverFilePath(env)), { recursive: true });
    between.write = () => writeFileSync(serverFilePath(env), JSON.stringify(other));
    const ours = { url: 'http://127.0.0.1:2/', token: 'ours', pid: process.pid };
    expect(() => writeServerFile(env, ours)).not.toThrow();
    expect(readServerFile(env)).toEqual(ours);
    expect(lstatSync(serverFilePath(env)).mode & 0o777).toBe(0o600);
  });

  it('replaces a symbolic link planted at its path instead of writing through it', () => {
    const env = homeEnv();
    const target = path.join(env.HOME!, 'target');
    writeFileSync(target, 'keep');
    fs.mkdirSync(path.dirname(serverFilePath(env)), { recursive: true });
    symlinkSync(target, serverFilePath(env));
    writeServerFile(env, { url: 'http://127.0.0.1:3/', token: 't', pid: process.pid });
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(serverFilePath(env)).isSymbolicLink()).toBe(false);
  });
});
