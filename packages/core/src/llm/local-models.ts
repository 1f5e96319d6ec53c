import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_LOCAL_MODEL } from './local.js';

/**
 * Where pulled models live and how a `--model` value names a file. Kept free of node-llama-cpp so
 * `beans models list` and the pull command work without loading it.
 */

/** `$BEANS_MODELS_DIR`, else `$XDG_CACHE_HOME/beans-agent/models`, else `~/.cache/beans-agent/models`. */
export function localModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BEANS_MODELS_DIR?.trim()) return path.resolve(env.BEANS_MODELS_DIR.trim());
  const cache = env.XDG_CACHE_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.cache');
  return path.join(cache, 'beans-agent', 'models');
}

/** A model URI taken apart: a Hugging Face repository file (or quant), or a plain URL. */
export type ModelUri = { kind: 'hf'; user: string; repo: string; file?: string; quant?: string; revision: string } | { kind: 'url'; url: URL };

/** Parses `hf:<user>/<repo>:<quant>`, `hf:<user>/<repo>/<file.gguf>` (optionally `#<revision>`) or an http(s) URL; undefined for anything else. */
export function parseModelUri(uri: string): ModelUri | undefined {
  const text = uri.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      return { kind: 'url', url: new URL(text) };
    } catch {
      return undefined;
    }
  }
  const hf = /^hf:([\w.-]+)\/([\w.-]+)(?:(\/[^#:]+\.gguf)|:([\w.-]+))?(?:#([\w.-]+))?$/i.exec(text);
  if (!hf) return undefined;
  const [, user, repo, file, quant, revision] = hf;
  return { kind: 'hf', user, repo, ...(file ? { file: file.slice(1) } : {}), ...(quant ? { quant } : {}), revision: revision ?? 'main' };
}

/** The file name a URI is stored under in the models folder (stable, so a second pull finds it). */
export function cachedFileName(uri: ModelUri): string {
  const safe = (s: string) => s.replace(/[^\w.-]+/g, '_');
  if (uri.kind === 'url') {
    const base = path.posix.basename(uri.url.pathname) || 'model';
    return safe(base.toLowerCase().endsWith('.gguf') ? base : `${base}.gguf`);
  }
  const tail = uri.file ? path.posix.basename(uri.file) : `${uri.repo}-${uri.quant ?? 'default'}.gguf`;
  return safe(`hf_${uri.user}_${tail}`);
}

/** What a `--model` value points at. */
export type LocalModelRef = { file: string; uri?: string } | { missing: string; uri?: string };

/**
 * A `--model` value as a file: a path to a file, a URI already pulled into the models folder, or the
 * name of a file there. `missing` says what to pull when the value names a URI not yet downloaded.
 */
export function resolveLocalModel(model: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): LocalModelRef {
  const wanted = model?.trim() || DEFAULT_LOCAL_MODEL;
  const uri = parseModelUri(wanted);
  const dir = localModelsDir(env);
  if (uri) {
    const file = path.join(dir, cachedFileName(uri));
    return existsSync(file) ? { file, uri: wanted } : { missing: wanted, uri: wanted };
  }
  const expanded = wanted.startsWith('~/') ? path.join(env.HOME || os.homedir(), wanted.slice(2)) : wanted;
  const direct = path.resolve(cwd, expanded);
  if (existsSync(direct)) return { file: direct };
  const named = path.join(dir, path.basename(wanted));
  if (!wanted.includes('/') && existsSync(named)) return { file: named };
  if (!wanted.includes('/') && existsSync(`${named}.gguf`)) return { file: `${named}.gguf` };
  return { missing: wanted };
}

/** The pulled models: `.gguf` files in the models folder (partial downloads excluded). */
export function listLocalModelFiles(env: NodeJS.ProcessEnv = process.env): { name: string; file: string; bytes: number }[] {
  const dir = localModelsDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.toLowerCase().endsWith('.gguf'))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      return { name, file, bytes: statSync(file).size };
    });
}

/** "1.8 GB", "640 KB": sizes as people read them (GiB and friends, written GB as most tools do). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${bytes} bytes`;
}
