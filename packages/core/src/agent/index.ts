export * from './types.js';
export { runAgentLoop, type AgentLoopConfig } from './agent-loop.js';
export type { DurableSteps, Replayed, ToolOutcome } from './durable-steps.js';
export { ChatSession, userMessage, type ChatSessionOptions, type SessionListener } from './chat-session.js';
export { convertToLlm, modelView, INTERRUPTED_NOTE, INTERRUPTED_RESULT } from './convert.js';
export { contextTokens, contextUsage, estimateTokens, type ContextCategory, type ContextUsage } from './context-usage.js';
export { executeToolCalls, truncateMiddle, MAX_TOOL_OUTPUT_CHARS, SKIPPED_RESULT, type ReadOnlyCommandCheck } from './tool-executor.js';
export { addUsage, emptyUsage } from './usage.js';
export {
  composeBeforeToolCall,
  composeAfterToolCall,
  type BeforeToolCall,
  type AfterToolCall,
  type BeforeToolCallResult,
  type ToolCallContext,
} from './tool-hooks.js';
export { LoopDetector, DEFAULT_MAX_REPEATS, type LoopDetectionOptions } from './loop-detector.js';
