/**
 * Guardrails a program writes as functions, beside the pattern rules of the settings: the OpenAI
 * Agents SDK's shape (`name`, an async `execute`, `tripwireTriggered`). Input guardrails see the
 * user's prompt before the model does; output guardrails see the final answer before it is given.
 */

/** What a guardrail function decides. */
export interface GuardrailFunctionOutput {
  /** True stops the prompt (input) or withholds the answer (output). */
  tripwireTriggered: boolean;
  /** Why, for the user; default: "blocked by the guardrail <name>". */
  message?: string;
  /** Anything the program wants to keep about the check (scores, labels); Beans does not read it. */
  outputInfo?: unknown;
}

export interface InputGuardrail<TContext = unknown> {
  name: string;
  /** May be async (a classifier, a database); a throw counts as a tripwire (the prompt does not go on). */
  execute(args: { input: string; context: TContext; signal: AbortSignal }): GuardrailFunctionOutput | Promise<GuardrailFunctionOutput>;
}

export interface OutputGuardrail<TContext = unknown> {
  name: string;
  /** May be async; a throw counts as a tripwire (the answer is withheld). */
  execute(args: { agentOutput: string; context: TContext; signal: AbortSignal }): GuardrailFunctionOutput | Promise<GuardrailFunctionOutput>;
}

/** A session's guardrail functions and the context they receive. */
export interface GuardrailFunctions {
  input: readonly InputGuardrail[];
  output: readonly OutputGuardrail[];
  context: unknown;
}

/** The first tripped guardrail, in list order. */
export interface GuardrailTrip {
  name: string;
  message: string;
  outputInfo?: unknown;
}

/** Runs the input guardrail functions together on a prompt; the first tripped one (in list order) wins. */
export function checkInputFunctions(functions: GuardrailFunctions | undefined, input: string, signal: AbortSignal): Promise<GuardrailTrip | undefined> {
  return firstTrip(functions?.input ?? [], 'prompt', (guardrail) => guardrail.execute({ input, context: functions?.context, signal }));
}

/** Runs the output guardrail functions together on a final answer; the first tripped one wins. */
export function checkOutputFunctions(functions: GuardrailFunctions | undefined, agentOutput: string, signal: AbortSignal): Promise<GuardrailTrip | undefined> {
  return firstTrip(functions?.output ?? [], 'answer', (guardrail) => guardrail.execute({ agentOutput, context: functions?.context, signal }));
}

async function firstTrip<G extends { name: string }>(
  list: readonly G[],
  what: 'prompt' | 'answer',
  run: (guardrail: G) => GuardrailFunctionOutput | Promise<GuardrailFunctionOutput>,
): Promise<GuardrailTrip | undefined> {
  if (list.length === 0) return undefined;
  // Fail closed: a guardrail that cannot say yes has not said yes.
  const outputs = await Promise.all(
    list.map(async (guardrail) => {
      try {
        return await run(guardrail);
      } catch (error) {
        return {
          tripwireTriggered: true,
          message: `The guardrail ${guardrail.name} failed (${error instanceof Error ? error.message : String(error)}), so the ${what} was stopped.`,
        };
      }
    }),
  );
  const index = outputs.findIndex((output) => output?.tripwireTriggered === true);
  if (index < 0) return undefined;
  const output = outputs[index];
  const name = list[index].name;
  return {
    name,
    message: output.message ?? `The ${what} was blocked by the guardrail ${name}.`,
    ...(output.outputInfo !== undefined ? { outputInfo: output.outputInfo } : {}),
  };
}
