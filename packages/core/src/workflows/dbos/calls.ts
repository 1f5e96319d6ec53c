import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { AgentRunner } from '../engine.js';
import type { CallTarget } from '../types.js';
import type { RunDatabase } from './database.js';

// The two halves of a `call` on DBOS. The run's side (queueRunner) puts the call on the calls queue
// under an id made of the run, its generation, the unit's key and the attempt, then waits for the
// result: enqueueing the same id again returns the existing call, so a recovered run never starts a
// call twice. The worker's side runs the agent inside a DBOS step, whose recorded output is what a
// recovery reads instead of running it again.

export const RUNS_QUEUE = 'beans_runs';
export const CALLS_QUEUE = 'beans_calls';
export const CALL_WORKFLOW = 'beansCall';
export const RUN_WORKFLOW = 'beansRun';

export interface CallArgs {
  runId: string;
  agent: string;
  prompt: string;
  /** The run's provider and model (absent in calls enqueued before Beans sent it: the worker's own). */
  target?: CallTarget;
}

export interface CallResult {
  text: string;
  worker: string;
}

/** `<run>/g<generation>/<unit key>/a<attempt>`: one call's identity across processes and recoveries. */
export function callId(runId: string, generation: number, key: string, attempt: number): string {
  return `${runId}/g${generation}/${key}/a${attempt}`;
}

export interface QueueRunner extends AgentRunner {
  /** Stops the progress poller. */
  stop(): void;
}

/**
 * Runs the engine's calls on the calls queue. Workers' report_progress arrives through
 * beans.call_progress and is handed to the waiting call's onProgress.
 */
export function queueRunner(options: {
  runId: string;
  generation: number;
  client: DBOSClient;
  db: RunDatabase;
  appVersion: string;
  /** Also the call's queue partition: the rate limit counts each provider's calls apart. */
  target: CallTarget;
  beforeCall: () => Promise<void>;
  /** A call failed: lets the run notice it was cancelled (the call's failure is then not a step failure). */
  onCallError: () => Promise<void>;
}): QueueRunner {
  const listeners = new Map<string, (local: number, message?: string) => void>();
  // One query finds every finished call of the run (instead of one poll per waiting call): a run
  // with hundreds of calls in flight costs the database one query per tick.
  const waiting = new Map<string, () => void>();
  let checking = false;
  const done = setInterval(() => {
    if (checking || waiting.size === 0) return;
    checking = true;
    options.client
      .listWorkflows({
        workflowIDs: [...waiting.keys()],
        status: ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'],
        loadInput: false,
        loadOutput: false,
      })
      .then((finished) => {
        for (const call of finished) waiting.get(call.workflowID)?.();
      })
      .catch(() => {})
      .finally(() => (checking = false));
  }, 15);
  let seq = 0;
  // One read at a time, in order: the timer's and the one a finishing call makes share this chain.
  let reading: Promise<void> = Promise.resolve();
  const readProgress = () =>
    (reading = reading.then(() =>
      options.db
        .callProgressSince(options.runId, seq)
        .then((rows) => {
          for (const row of rows) {
            seq = Math.max(seq, row.seq);
            listeners.get(row.callId)?.(row.local, row.message);
          }
        })
        .catch(() => {}),
    ));
  let polling = false;
  const poll = setInterval(() => {
    if (polling || listeners.size === 0) return;
    polling = true;
    void readProgress().finally(() => (polling = false));
  }, 150);
  return {
    stop: () => {
      clearInterval(poll);
      clearInterval(done);
    },
    async run(call) {
      // What was reported finished is stored before the next request leaves.
      await options.beforeCall();
      const id = callId(options.runId, options.generation, call.key, call.attempt);
      listeners.set(id, call.onProgress);
      try {
        const args: CallArgs = { runId: options.runId, agent: call.agent, prompt: call.prompt, target: options.target };
        const handle = await options.client.enqueue(
          { queueName: CALLS_QUEUE, workflowName: CALL_WORKFLOW, workflowID: id, appVersion: options.appVersion, queuePartitionKey: options.target.provider },
          args,
        );
        const finished = new Promise<void>((resolve) => waiting.set(id, resolve));
        try {
          // Finished: the result is read at once.
          const result = await untilAborted(
            finished.then(() => handle.getResult() as Promise<CallResult>),
            call.signal,
            () => options.client.cancelWorkflow(id).catch(() => {}),
          );
          // A call shorter than the poll interval still shows what it reported, before its result.
          await readProgress();
          return result.text;
        } catch (error) {
          if (!call.signal.aborted) await options.onCallError();
          throw error;
        }
      } finally {
        waiting.delete(id);
        listeners.delete(id);
      }
    },
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => Promise<unknown>): Promise<T> {
  if (signal.aborted) {
    void onAbort();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      void onAbort();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        // DBOS hands back the worker's error; its message is the agent's failure.
        reject(error instanceof Error ? new Error(error.message.replace(/^Error: /, '')) : new Error(String(error)));
      },
    );
  });
}

/**
 * Aborts calls of this worker that were cancelled from elsewhere (`beans workflow cancel`, a run
 * that timed out or was interrupted): DBOS marks the call CANCELLED; the agent stops mid-turn.
 */
export class InFlightCalls {
  private readonly calls = new Map<string, AbortController>();
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(client: () => DBOSClient | undefined) {
    this.timer = setInterval(() => {
      const dbos = client();
      if (this.checking || this.calls.size === 0 || !dbos) return;
      this.checking = true;
      dbos
        .listWorkflows({ workflowIDs: [...this.calls.keys()], loadInput: false, loadOutput: false })
        .then((statuses) => {
          for (const status of statuses) if (status.status === 'CANCELLED') this.calls.get(status.workflowID)?.abort(new Error('the call was cancelled'));
        })
        .catch(() => {})
        .finally(() => (this.checking = false));
    }, 500);
  }

  begin(id: string): AbortSignal {
    const controller = new AbortController();
    this.calls.set(id, controller);
    return controller.signal;
  }

  end(id: string): void {
    this.calls.delete(id);
  }

  get size(): number {
    return this.calls.size;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
