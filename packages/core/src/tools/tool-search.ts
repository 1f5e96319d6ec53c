import * as z from 'zod';
import { lazily } from '../lazily.js';
import { TOOL_SEARCH } from './deferred-tools.js';
import { defineTool } from './tool.js';

const schema = lazily(() =>
  z.object({
    query: z.string().min(1).describe('"select:<name>[,<name>...]" loads those exact tools; other text searches tool names and descriptions'),
    max_results: z.int().min(1).max(50).optional().describe('Most tools a keyword search loads (default 5)'),
  }),
);

/**
 * Loads deferred tools (listed by name in the system prompt, schemas left out of requests) so the
 * model can call them from its next step: Claude Code's `ToolSearch`. A keyword search loads the
 * best matches, as Claude Code's does.
 */
export const toolSearchTool = defineTool({
  name: TOOL_SEARCH,
  kind: 'meta',
  description:
    'Load deferred tools (listed by name in the system prompt) so you can call them. ' +
    'query "select:<name>[,<name>...]" loads those exact tools; other text searches names and descriptions and loads the best matches.',
  schema,
  summarize: (input) => input.query,
  async execute(input, ctx) {
    const deferred = ctx.deferredTools;
    if (!deferred) return { content: 'No tools are deferred in this session: every tool is already declared.', isError: true };
    const query = input.query.trim();
    if (query.startsWith('select:')) {
      const names = query
        .slice('select:'.length)
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = names.filter((name) => !deferred.isDeferred(name));
      deferred.load(names);
      const ready = names.filter((name) => deferred.loaded().includes(name));
      const lines = [ready.length > 0 ? `Loaded: ${ready.join(', ')}. You can call them from your next step.` : 'No tool was loaded.'];
      if (unknown.length > 0) lines.push(`Not deferred tools: ${unknown.join(', ')} (names must match the list exactly; search with keywords to find one).`);
      // Anthropic reads the loaded tools as tool_reference blocks of the result (llm/anthropic-client.ts).
      return { content: lines.join('\n'), ...(ready.length === 0 ? { isError: true } : { metadata: { anthropic: { toolReferences: ready } } }) };
    }
    const found = deferred.search(query, input.max_results ?? 5);
    if (found.length === 0) return { content: `No deferred tool matches "${query}".` };
    deferred.load(found.map((tool) => tool.name));
    const lines = found.map((tool) => `- ${tool.name}: ${firstLine(tool.description)}`);
    return {
      metadata: { anthropic: { toolReferences: found.map((tool) => tool.name) } },
      content: `Loaded ${found.length} tool${found.length === 1 ? '' : 's'}, best match first; you can call them from your next step:\n${lines.join('\n')}`,
    };
  },
});

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0].trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
