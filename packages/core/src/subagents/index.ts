export { findSubagent, GENERAL_PURPOSE_PROMPT, parseInlineAgents, subagentList, type InlineAgents, type SubagentDefinition } from './agents.js';
export { createTaskTool, DEFAULT_MAX_PARALLEL, TASK_TOOL_NAME, type RunSubagent, type SubagentOutcome, type TaskToolOptions } from './task-tool.js';
export { createSubagentRunner, DEFAULT_CHILD_MAX_TURNS, type ChildSessionParent } from './child-session.js';
export {
  createHandoffTool,
  HANDOFF_TOOL_NAME,
  HandoffController,
  HandoffError,
  matchScore,
  MAX_HANDOFFS_PER_MESSAGE,
  type ActiveAgent,
  type HandoffInfo,
  type HandoffTrigger,
} from './handoff.js';
export { createSessionHandoffs } from './session-handoffs.js';
export type { SubagentLink } from './child-session.js';
