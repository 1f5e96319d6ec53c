export { parseInlineAgents, subagentList, type SubagentDefinition } from './agents.js';
export { createTaskTool, type RunSubagent, type SubagentOutcome } from './task-tool.js';
export { createSubagentRunner } from './child-session.js';
export { createHandoffTool, HANDOFF_TOOL_NAME, HandoffController, HandoffError, matchScore, type HandoffInfo } from './handoff.js';
export { createSessionHandoffs } from './session-handoffs.js';
