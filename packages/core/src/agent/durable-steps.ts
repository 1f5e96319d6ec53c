import type { ToolCall } from '../llm/types.js';
import type { AssistantMessage, PermissionDenial, ToolResultMessage } from './types.js';

/**
 * Makes a conversation's model answers and tool results durable steps (background sessions on
 * runners, issue 56): each is done once and recorded, and a session recovered on another machine
 * replays the conversation from the start, reading every recorded result instead of asking the
 * model or running the tool again. Only the loop's own steps are steps (a subagent's work is inside
 * its `task` call's result), and they are asked for in the loop's order, which the same recorded
 * results make the same on every replay: a recorder may key them by their position.
 */
export interface DurableSteps {
  /** The model's next answer: `live` asks the model; a recorded answer is returned instead. */
  modelAnswer(live: () => Promise<AssistantMessage>): Promise<Replayed<AssistantMessage>>;
  /**
   * One tool call with everything around it (validation, hooks, the permission question, the run).
   * Called synchronously in the model's order for the calls of a batch, even when they run in parallel.
   */
  toolResult(call: ToolCall, live: () => Promise<ToolOutcome>): Promise<Replayed<ToolOutcome>>;
}

/** A step's value, and whether it was read back rather than done now. */
export interface Replayed<T> {
  value: T;
  replayed: boolean;
}

/** What one tool call left: its result for the model, and what the run must remember of it. */
export interface ToolOutcome {
  message: ToolResultMessage;
  /** The call was refused (permission_denials of the result). */
  denial?: PermissionDenial;
  /** A permission answer asked to stop the run after this call. */
  interrupt?: boolean;
}
