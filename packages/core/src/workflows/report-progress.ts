import * as z from 'zod';
import { defineTool } from '../tools/tool.js';

export const REPORT_PROGRESS_TOOL_NAME = 'report_progress';

/**
 * A worker's progress on its workflow step. The tool itself only acknowledges: the workflow reads
 * the call from the worker's events, so each report lands on the step that made it.
 */
export const reportProgressTool = defineTool({
  name: REPORT_PROGRESS_TOOL_NAME,
  description:
    'Reports how far you are with your workflow step: percent (0-100) of your own job done, and optionally a short message on what you are doing. Call it at milestones; it does not end your turn.',
  kind: 'meta',
  schema: z.object({
    percent: z.number().min(0).max(100).describe('How much of your job is done, 0-100.'),
    message: z.string().max(200).optional().describe('What you are doing now, in a few words.'),
  }),
  summarize: (input) => `${input.percent}%${input.message ? ` ${input.message}` : ''}`,
  execute: async () => ({ content: 'Progress noted.' }),
});
