export { createAgentSession, type AgentSession, type PermissionRulesInfo } from './agent-session.js';
export { bindRunContext, type CreateSessionOptions, type RunContextOptions } from './run-context.js';
export type { HandoffInfo, HandoffInputData, HandoffTrigger } from '../subagents/handoff.js';
export type { AgentSessionOptions, CanUseTool, PermissionResult, ToolLimits } from './session-options.js';
export { mcpToolsWouldDefer } from './defer-tools.js';
export {
  loadRuntimeBase,
  loadCatalog,
  sessionStore,
  providerIdOf,
  clientFor,
  resolveClientModel,
  builtinPluginsDir,
  programEnvironment,
  type RuntimeBase,
  type RuntimeBaseOptions,
} from './base.js';
export { parsePermissionMode, sdkPermissionMode, type SdkPermissionMode } from './permission-mode.js';
export { permissionHook } from './permission-chain.js';
export { preparePrompt, type Prepared } from './prepare-prompt.js';
export { initPrompt, builtinPromptMessage } from './init-prompt.js';
export { attachFileReferences, type Attached } from './attach-files.js';
export { compactSession } from './compact.js';
export { generateProfile } from './profile-writer.js';
export { parseOutputSchema, withStructuredOutput, STRUCTURED_OUTPUT_RETRIES, type OutputFormat, type OutputSchema } from './structured-output.js';
export { wireNames, type ToolNames } from './wire-names.js';
export {
  SdkMessageMapper,
  startupFailureResult,
  resultSubtype,
  sdkStopReason,
  sdkUsage,
  type SessionInitInfo,
  type SdkMessageMapperOptions,
  type RunSummary,
} from './sdk-messages.js';
export type * from './sdk-types.js';
export {
  query,
  fromSdkUser,
  submitSummary,
  turnExitCode,
  type Query,
  type QueryOptions,
  type SdkUserInput,
  type SdkInputBlock,
  type McpServerStatusInfo,
} from './query.js';
export { runTurn, type TurnOutcome } from './run-turn.js';
export {
  decideWorkspaceTrust,
  trustQuestion,
  answerTrustQuestion,
  approveDeclaration,
  trustFolder,
  type DecideTrustInput,
  type WorkspaceTrust,
  type TrustQuestion,
  type ApprovalQuestion,
  type TrustQuestionOptions,
  type TrustAnswer,
} from './workspace-trust.js';
export {
  repositoryDeclarations,
  recordTrustedDeclarations,
  describeDeclaration,
  newSinceTrust,
  mcpServerId,
  lspServerId,
  hookId,
  type Declaration,
} from './repository-declarations.js';
export {
  rewindFilesResult,
  type RewindFilesResult,
  type SessionCheckpoints,
  type SessionRewindOptions,
  type SessionRewindResult,
} from './session-checkpoints.js';
export { NoModelError } from './fallback-provider.js';
export { createSubmit, type SubmitInput, type SubmitOutcome, type SubmitParts } from './submit.js';
export { usageLines, type SessionCommand } from './session-commands.js';
export type { SessionModel } from './session-model.js';
export type { SessionListings, SlashCommandInfo } from './session-listings.js';
export {
  createSchedules,
  SCHEDULE_EXPIRY_MS,
  MIN_LOOP_MS,
  DEFAULT_LOOP_MS,
  type Schedules,
  type ScheduleFire,
  type SchedulesInput,
  type Clock,
} from './schedules.js';
export { createGoals, goalDefaults, type Goals, type GoalState, type GoalPhase } from './goal.js';
export { parseInterval, parseLoopArgs, goalProgress } from './schedule-commands.js';
export { nextCronRun, checkCron } from './cron.js';
export { localRoutineStore, startRoutineScheduler, type Routine, type RoutineRun, type RoutineStore, type RoutineSchedulerInput } from './routines.js';
