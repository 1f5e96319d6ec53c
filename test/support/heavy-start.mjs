// Loaded with `node --import` by test/e2e/startup-regression.test.ts to make start-up measurably
// slower the way a real regression would: highlight.js with all of its ~190 languages, compiled and
// run before Beans' entry (~100-200 ms on a 2-core machine).
import { createRequire } from 'node:module';

createRequire(new URL('../../packages/cli/package.json', import.meta.url))('highlight.js');
