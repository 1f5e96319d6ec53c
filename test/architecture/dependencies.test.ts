import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

// The architecture check of issue 28, with the repository's own rules (.dependency-cruiser.cjs).
// The same check on the command line: pnpm exec depcruise packages --config .dependency-cruiser.cjs
const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden'];
  options: ICruiseOptions;
  /** The layers of packages/core/src, lowest first (issue 52). */
  layers: string[][];
};
const MAX_LINES = 400;

async function check(baseDir: string): Promise<{ violations: IViolation[]; modules: string[] }> {
  const options: ICruiseOptions = {
    ...config.options,
    baseDir,
    tsConfig: { fileName: path.join(root, 'tsconfig.base.json') },
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  };
  const { output } = await cruise(['packages'], options);
  if (typeof output === 'string') throw new Error('dependency-cruiser answered text, not a result');
  return {
    violations: output.summary.violations,
    modules: output.modules.filter((module) => !module.coreModule && !module.couldNotResolve).map((module) => module.source),
  };
}

const describeViolation = (violation: IViolation) =>
  `${violation.rule.name}: ${violation.from} → ${violation.to}${violation.cycle ? ` (${violation.cycle.map((step) => step.name).join(' → ')})` : ''}`;

describe('architecture (dependency-cruiser)', () => {
  it('packages/ has no import circle and no layering breach; files over 400 lines are listed, not failed', async () => {
    const { violations, modules } = await check(root);
    expect(violations.filter((violation) => violation.rule.severity === 'error').map(describeViolation)).toEqual([]);
    expect(modules.length).toBeGreaterThan(300);
    const long = modules
      .filter((source) => /^packages\/.*\.tsx?$/.test(source))
      .map((source) => ({ source, lines: readFileSync(path.join(root, source), 'utf8').split('\n').length }))
      .filter((file) => file.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines);
    // A warning: a long file is a reason to split it by responsibility, not a broken build.
    if (long.length)
      console.warn(
        `Files over ${MAX_LINES} lines (split them by responsibility when you pass by):\n${long.map((file) => `  ${file.lines} ${file.source}`).join('\n')}`,
      );
  }, 120_000);

  // Issue 52, item 6: a new folder gets its place in the layers when it is made, not when someone notices.
  it('every folder of packages/core/src is in exactly one layer, and every layer names a folder that exists', () => {
    const folders = readdirSync(path.join(root, 'packages/core/src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const layered = config.layers.flat();
    expect(new Set(layered).size).toBe(layered.length);
    expect([...layered].sort()).toEqual(folders);
  });

  describe('fails on a new breach', () => {
    const fixture = mkdtempSync(path.join(os.tmpdir(), 'beans-arch-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };

    it('an import circle, a tool importing the agent, core importing the CLI, llm importing config, a lower folder importing runtime, the loop importing the policy', async () => {
      write('packages/core/src/tools/tool.ts', "import type { AgentEvent } from '../agent/types.js';\nexport type ToolEvent = AgentEvent;\n");
      write(
        'packages/core/src/agent/types.ts',
        "import type { ToolEvent } from '../tools/tool.js';\nexport type AgentEvent = { type: string; tool?: ToolEvent };\n",
      );
      write('packages/core/src/llm/provider.ts', "import { render } from '../../../cli/src/ui/render.js';\nexport const provider = render;\n");
      write('packages/cli/src/ui/render.ts', 'export const render = 1;\n');
      write('packages/core/src/llm/pricing.ts', "import { settings } from '../config/settings.js';\nexport const price = settings;\n");
      write('packages/core/src/config/settings.ts', 'export const settings = 1;\n');
      write('packages/core/src/session/store.ts', "import { buildSession } from '../runtime/build.js';\nexport const store = buildSession;\n");
      write('packages/core/src/runtime/build.ts', 'export const buildSession = 1;\n');
      // The loop asking the policy itself (issue 52: the steering check is a seam), and a root file reaching into a folder.
      write('packages/core/src/agent/steer.ts', "import { classify } from '../permissions/read-only.js';\nexport const steer = classify;\n");
      write('packages/core/src/permissions/read-only.ts', 'export const classify = 1;\n');
      write('packages/core/src/errors.ts', "import { steer } from './agent/steer.js';\nexport const errors = steer;\n");
      const names = new Set((await check(fixture)).violations.map((violation) => violation.rule.name));
      expect([...names].sort()).toEqual([
        'agent-loop-is-small',
        'core-never-imports-cli',
        'layer-1-llm-claude',
        'layer-3-tools-sandbox-memory',
        'layer-6-config-hooks-guardrails-prompt-session-subagents-mcp-lsp-checkpoints-telemetry',
        'llm-is-the-floor',
        'no-circular',
        'root-files-are-the-floor',
      ]);
    }, 60_000);
  });
});
