export { HOOK_EVENTS, hooksSchema, type HookEventName, type HooksSettings, type HookMatcherGroup } from './schema.js';
export {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  describeHookSource,
  type HookCallback,
  type HookCommand,
  type HookProblem,
  type HookSet,
  type HookSource,
} from './types.js';
export { loadHooks, readSettingsHooks, type LoadHooksOptions, type SettingsHooks } from './load-hooks.js';
export { runHookCommand, type CommandRun, type RunCommandOptions } from './run-command.js';
export { createHookRunner, type HookRunner, type HookRunnerOptions, type ToolCallInfo } from './runner.js';
export type {
  HookOutcomeBase,
  NoticeOutcome,
  PostToolUseOutcome,
  PreToolUseOutcome,
  SessionStartOutcome,
  StopOutcome,
  UserPromptSubmitOutcome,
} from './outcomes.js';
export { claudeToolResponse, type ToolResultLike } from './tool-response.js';
export { hookToolCallbacks } from './tool-callbacks.js';
export { loadWorkspaceHooks } from './workspace-hooks.js';
export { gateFinalAnswer, gateUserPrompt, type AnswerGate, type PromptGate } from './turn-gates.js';
export { programHookCommands, type ProgramHooks } from './program-hooks.js';
