// Issue 36: a provider's client chunk is loaded (read, decoded, its code cache deserialised) on the
// way to every first request, ~6 ms of CPU per MB even for code that never runs. @google/genai's web
// build made the Gemini chunk 968 KB: its GoogleGenAI constructor makes every API module (live, files,
// caches, tunings...) and its getters reach the "NextGen" client, so nothing could be left out.
// scripts/bundle.mjs (geminiModelsOnly) keeps only GoogleGenAI.models, the one member Beans' Gemini
// client uses; this fails if the chunk grows back (e.g. that rewrite removed or no longer effective).
// That Gemini still works through the trimmed SDK is what the provider e2e tests check.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BUNDLE = path.resolve(import.meta.dirname, '../../packages/cli/dist/bundle');
// The chunk was 357 KB when the limit was set (968 KB before).
const LIMITS: Record<string, number> = { gemini: 450 * 1024 };

describe('provider client chunks in the bundle', () => {
  it.each(Object.keys(LIMITS))('the %s client chunk stays small', (provider) => {
    const chunks = readdirSync(BUNDLE).filter((name) => name.startsWith(`${provider}-client-`) && name.endsWith('.mjs'));
    expect(chunks).toHaveLength(1);
    const bytes = statSync(path.join(BUNDLE, chunks[0]!)).size;
    expect(bytes, `${chunks[0]} is ${bytes} bytes`).toBeLessThanOrEqual(LIMITS[provider]!);
  });
});
