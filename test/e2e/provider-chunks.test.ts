// Issue 36: a provider's client chunk is loaded (read, decoded, its code cache deserialised) on the
// way to every first request, ~6 ms of CPU per MB even for code that never runs. @google/genai's web
// build made the Gemini chunk 968 KB: its GoogleGenAI constructor makes every API module (live, files,
// caches, tunings...) and its getters reach the "NextGen" client, so nothing could be left out.
// scripts/bundle.mjs (geminiModelsOnly) keeps only GoogleGenAI.models, the one member Beans' Gemini
// client uses. The OpenAI SDK's client made all ~28 API resources and the chunk was 997 KB;
// openAiChatAndModelsOnly keeps chat and models. This fails if a chunk grows back (e.g. a rewrite
// removed or no longer effective). That both still work through the trimmed SDKs is what the provider
// e2e tests check.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BUNDLE = path.resolve(import.meta.dirname, '../../packages/cli/dist/bundle');
// When the limits were set (minified bundle): Gemini 267 KB, OpenAI 305 KB; untrimmed they were
// 968 and 997 KB before minifying.
const LIMITS: Record<string, number> = { gemini: 360 * 1024, openai: 400 * 1024 };

describe('provider client chunks in the bundle', () => {
  it.each(Object.keys(LIMITS))('the %s client chunk stays small', (provider) => {
    const chunks = readdirSync(BUNDLE).filter((name) => name.startsWith(`${provider}-client-`) && /\.[mc]js$/.test(name));
    expect(chunks).toHaveLength(1);
    const bytes = statSync(path.join(BUNDLE, chunks[0]!)).size;
    expect(bytes, `${chunks[0]} is ${bytes} bytes`).toBeLessThanOrEqual(LIMITS[provider]!);
  });
});
