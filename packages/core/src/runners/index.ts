// Background sessions on runners (issue 56). Loaded only when a database is configured and a
// runner, --background or a background session's view runs (a dynamic import): DBOS and pg stay off start-up.
export { type Answer, type BackgroundSession, type BackgroundState, type SessionRequest, type SessionResult } from './database.js';
export { admit, DEFAULT_SESSION_MODES, type Admitted, type RunnerPolicy } from './policy.js';
export { startRunner, type Runner, type RunnerOptions } from './runner.js';
export type { AgentSpec, OpenAgent } from './session-run.js';
export { queueSession, type QueuedSession } from './submit.js';
export { BackgroundSessions } from './watch.js';
export type { GitIdentity } from './worktree.js';
export { RunnerRoutines, type RunnerRoutine, type RunnerRoutineRun } from './routines.js';
