import { DBOS } from '@dbos-inc/dbos-sdk';
import type { DurableSteps, Replayed, ToolOutcome } from '../agent/durable-steps.js';
import type { AssistantMessage } from '../agent/types.js';
import type { ToolCall } from '../llm/types.js';
import type { Worktree, WorktreeChange } from './worktree.js';

// A background session's durable steps on DBOS: every model answer and every tool call is a DBOS
// step of the session's workflow (`DBOS.runStep`, one row of dbos.operation_outputs), numbered in the
// order the loop asks for them. A runner that takes the session over runs the workflow again from
// the start: DBOS hands back each recorded output instead of running its step, so the conversation
// comes back from the database, and a tool call that changed files brings its patch with it. Only
// the step that was in flight when the runner died runs again. DBOS checks each replayed step's
// name against the recorded one, so a conversation that went another way fails loudly.

export interface SessionSteps extends DurableSteps {
  /** True once a step ran now rather than being read back: the session is live again. */
  readonly live: boolean;
  /** Called when the first step runs now (events of the replay are already in the log). */
  onLive?: () => void;
}

interface RecordedTool {
  outcome: ToolOutcome;
  change?: WorktreeChange;
}

export function sessionSteps(options: {
  worktree: Worktree;
  /** Whether a call may change files (edits, commands): only those are committed after they run. */
  changes: (call: ToolCall) => boolean;
  /** Awaited before a step is recorded: the events it emitted are stored first. */
  beforeRecord: () => Promise<void>;
}): SessionSteps {
  let live = false;
  const goLive = () => {
    if (live) return;
    live = true;
    steps.onLive?.();
  };
  const step = <T>(name: string, run: () => Promise<T>): Promise<{ value: T; ran: boolean }> => {
    if (!DBOS.isWithinWorkflow()) throw new Error('A background session step ran outside its DBOS workflow.');
    let ran = false;
    // runStep numbers the step at once, before any await: calls of one batch keep the model's order.
    return DBOS.runStep(
      async () => {
        ran = true;
        goLive();
        const value = await run();
        await options.beforeRecord();
        return value;
      },
      { name },
    ).then((value) => ({ value, ran }));
  };
  const steps: SessionSteps = {
    get live() {
      return live;
    },
    async modelAnswer(answer): Promise<Replayed<AssistantMessage>> {
      const { value, ran } = await step('model', answer);
      return { value, replayed: !ran };
    },
    async toolResult(call, run): Promise<Replayed<ToolOutcome>> {
      const commits = options.changes(call);
      const what = `beans: ${call.name} (${call.id})`;
      const { value, ran } = await step(`tool ${call.name}`, async (): Promise<RecordedTool> => {
        const outcome = await run();
        const change = commits ? await options.worktree.capture(what) : undefined;
        return { outcome, ...(change ? { change } : {}) };
      });
      if (!ran && value.change) await options.worktree.restore(value.change, what);
      return { value: value.outcome, replayed: !ran };
    },
  };
  return steps;
}
