export { CLAUDE_TOOL_NAMES, claudeToolName, beansToolNameOf, toClaudeInput, fromClaudeInput, matcherCovers } from './vocabulary.js';
export { interpretHookOutput, type HookOutcome } from './hook-output.js';
