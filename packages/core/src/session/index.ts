export { SessionStore, SessionLookupError, parseSession, type NewSessionFields } from './session-store.js';
export { SessionWriter } from './session-writer.js';
export { summarizeSession } from './session-scan.js';
export { storedSchedules } from './schedule-meta.js';
export { sessionPrompts, storedPrompts, type StoredPrompt } from './prompt-history.js';
export { newSessionId, isSafeSessionId } from './session-id.js';
export { repairHistory } from './repair.js';
export {
  SESSION_FORMAT_VERSION,
  type SessionHeader,
  type SessionMeta,
  type SessionMetaInput,
  type SessionRecord,
  type SessionMessageRecord,
  type LoadedSession,
  type SessionSummary,
  type SubagentTranscript,
} from './types.js';
