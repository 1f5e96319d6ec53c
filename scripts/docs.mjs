// Writes the generated parts of the docs (README.md's tables of slash commands and keys,
// docs/configuration.md's settings, docs/cli.md's command-line reference) from the build:
//   pnpm run --silent build && node scripts/docs.mjs
// test/docs/generated.test.ts fails until the files hold what this writes (scripts/docs/generate.mjs
// says where each part comes from).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, generatedParts, writePart } from './docs/generate.mjs';

for (const part of await generatedParts()) {
  const file = path.join(ROOT, part.file);
  const before = readFileSync(file, 'utf8');
  const after = writePart(before, part.name, part.content);
  if (after !== before) writeFileSync(file, after);
  console.log(`${after === before ? 'unchanged' : 'wrote'} ${part.file} (${part.name})`);
}
