import path from 'node:path';
import * as z from 'zod';
import { diffDetails } from '../tools/diff.js';
import { readFileConfined, statOrUndefined } from '../tools/file-io.js';
import { guarded } from '../tools/result.js';
import { defineTool } from '../tools/tool.js';
import { MEMORY_FILE, appendMemoryFact, noteLine, withNote } from './memory-file.js';
import { lazily } from '../lazily.js';

const schema = lazily(() =>
  z.object({
    fact: z.string().describe('One line'),
  }),
);

/**
 * `memory`: the agent records a fact about the project in `.beans/memory.md`, which later sessions
 * read with the other context files. It changes what every later session is told, so it asks like
 * an edit (with the diff), unless an allow rule, auto-edit or yolo lets it run.
 */
export const memoryTool = memoryToolDescribed(
  'Save one durable project fact (build/test commands, conventions) to .beans/memory.md for future sessions; not task progress.',
);

/**
 * The same tool when a program keeps the memory in its own store (`memory` option): its description
 * names no file.
 */
export const storeMemoryTool = memoryToolDescribed(
  'Save one durable project fact (build/test commands, conventions) to the project memory for future sessions; not task progress.',
);

function memoryToolDescribed(description: string) {
  return defineTool({
    name: 'memory',
    kind: 'edit',
    description,
    schema,
    summarize: (input) => input.fact.slice(0, 80),
    async preview(input, ctx) {
      // A program's own store has no file to show a diff of; the question shows the fact.
      if (ctx.memory) return undefined;
      try {
        const file = path.join(ctx.workspace.root, MEMORY_FILE);
        const before = (await statOrUndefined(file)) ? (await readFileConfined(ctx.workspace.root, file)).toString('utf8') : '';
        return diffDetails(MEMORY_FILE, before, withNote(before, noteLine(input.fact)));
      } catch {
        return undefined;
      }
    },
    async execute(input, ctx) {
      return guarded(ctx.signal, async () => {
        if (ctx.memory) {
          const { added } = await ctx.memory.add(noteLine(input.fact).slice(2));
          return {
            content: added ? 'Remembered in the project memory; future sessions will read it.' : 'The project memory already holds this fact; nothing changed.',
          };
        }
        const outcome = await appendMemoryFact(ctx.workspace.root, input.fact);
        if (!outcome.added) return { content: `${MEMORY_FILE} already holds this fact; nothing changed.` };
        return { content: `Remembered in ${MEMORY_FILE}; future sessions will read it.`, details: diffDetails(MEMORY_FILE, outcome.before, outcome.after) };
      });
    },
  });
}
