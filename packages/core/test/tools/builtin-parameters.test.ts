import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { PluginCatalog } from '../../src/plugins/types.js';
import { createLoadSkillTool } from '../../src/plugins/skills.js';
import { createHandoffTool, type HandoffController } from '../../src/subagents/handoff.js';
import { createTaskTool } from '../../src/subagents/task-tool.js';
import { builtinTools } from '../../src/tools/builtin.js';
import { BUILTIN_PARAMETERS } from '../../src/tools/builtin-parameters.generated.js';
import { defineTool, schemaParameters, toolDeclaration } from '../../src/tools/tool.js';

const REGENERATE = 'run: pnpm run --silent build && node scripts/precompute.mjs';

// What sessions declare: the built-in tools, task, load_skill and handoff.
const declaredTools = () => [
  ...builtinTools(),
  createTaskTool({ agents: [], run: async () => ({ finalText: '', turns: 0, inputTokens: 0, outputTokens: 0, stopReason: 'completed' }) }),
  createLoadSkillTool({} as PluginCatalog),
  createHandoffTool({ targets: () => [] } as unknown as HandoffController),
];

describe('built-in tool parameters computed at build time', () => {
  it('match the schemas they stand for', () => {
    const tools = declaredTools();
    expect(Object.keys(BUILTIN_PARAMETERS).sort(), REGENERATE).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of tools) expect(BUILTIN_PARAMETERS[tool.name], `${tool.name}: ${REGENERATE}`).toEqual(schemaParameters(tool.schema!));
  });

  it('are what the model is given for those tools, and only for those very schemas', () => {
    for (const tool of declaredTools()) expect(toolDeclaration(tool).parameters).toBe(BUILTIN_PARAMETERS[tool.name]);
    const lookalike = defineTool({
      name: 'read_file',
      description: 'd',
      kind: 'read',
      schema: z.object({ other: z.string() }),
      execute: async () => ({ content: '' }),
    });
    expect(toolDeclaration(lookalike).parameters).toMatchObject({ properties: { other: { type: 'string' } } });
  });
});
