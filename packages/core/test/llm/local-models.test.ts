import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedFileName, localModelsDir, parseModelUri, resolveLocalModel, resolveProvider } from '../../src/llm/index.js';

describe('local model names', () => {
  it('parses hf: URIs and URLs, and names their cached files', () => {
    expect(parseModelUri('hf:Qwen/Qwen3-1.7B-GGUF:Q8_0')).toEqual({ kind: 'hf', user: 'Qwen', repo: 'Qwen3-1.7B-GGUF', quant: 'Q8_0', revision: 'main' });
    expect(parseModelUri('hf:Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf')).toMatchObject({ file: 'Qwen3-1.7B-Q8_0.gguf' });
    expect(parseModelUri('qwen3:latest')).toBeUndefined();
    expect(cachedFileName(parseModelUri('hf:Qwen/Qwen3-1.7B-GGUF:Q8_0')!)).toBe('hf_Qwen_Qwen3-1.7B-GGUF-Q8_0.gguf');
    expect(cachedFileName(parseModelUri('hf:Qwen/Qwen3-1.7B-GGUF/sub/Qwen3-1.7B-Q8_0.gguf')!)).toBe('hf_Qwen_Qwen3-1.7B-Q8_0.gguf');
    expect(cachedFileName(parseModelUri('https://example.test/m/small.gguf?download=1')!)).toBe('small.gguf');
  });

  it('resolves a path, a pulled URI and a pulled name; the models folder follows XDG_CACHE_HOME', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'beans-local-names-'));
    const env = { HOME: home, XDG_CACHE_HOME: path.join(home, 'cache') };
    const dir = localModelsDir(env);
    expect(dir).toBe(path.join(home, 'cache', 'beans-agent', 'models'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'hf_Qwen_Qwen3-1.7B-GGUF-Q8_0.gguf'), 'x');
    writeFileSync(path.join(home, 'own.gguf'), 'x');
    expect(resolveLocalModel('hf:Qwen/Qwen3-1.7B-GGUF:Q8_0', env)).toEqual({
      file: path.join(dir, 'hf_Qwen_Qwen3-1.7B-GGUF-Q8_0.gguf'),
      uri: 'hf:Qwen/Qwen3-1.7B-GGUF:Q8_0',
    });
    expect(resolveLocalModel('hf_Qwen_Qwen3-1.7B-GGUF-Q8_0', env, '/')).toEqual({ file: path.join(dir, 'hf_Qwen_Qwen3-1.7B-GGUF-Q8_0.gguf') });
    expect(resolveLocalModel('own.gguf', env, home)).toEqual({ file: path.join(home, 'own.gguf') });
    expect(resolveLocalModel('hf:a/b:Q4_K_M', env)).toEqual({ missing: 'hf:a/b:Q4_K_M', uri: 'hf:a/b:Q4_K_M' });
  });

  it('a .gguf or hf: model picks the local provider when none is set', () => {
    expect(resolveProvider({ values: { model: './m.gguf' } }, {}).providerId).toBe('local');
    expect(resolveProvider({ values: { model: 'hf:a/b:Q8_0' } }, {}).providerId).toBe('local');
    expect(resolveProvider({ values: { model: 'qwen3' } }, {}).providerId).toBe('ollama');
    expect(resolveProvider({ values: { model: './m.gguf', provider: 'ollama' } }, {}).providerId).toBe('ollama');
  });
});
