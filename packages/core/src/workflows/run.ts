import { UsageError } from '../errors.js';
import type { Workflow } from './types.js';

/** `--input key=value` pairs checked against the workflow's inputs; defaults fill the rest. */
export function workflowInputs(workflow: Workflow, given: Record<string, string>): Record<string, unknown> {
  const unknown = Object.keys(given).filter((key) => !(key in workflow.inputs));
  if (unknown.length > 0) {
    const known = Object.keys(workflow.inputs);
    throw new UsageError(
      `The workflow ${workflow.name} has no input ${unknown.join(', ')}. ${known.length ? `Its inputs: ${known.join(', ')}.` : 'It takes no inputs.'}`,
    );
  }
  const inputs: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, input] of Object.entries(workflow.inputs)) {
    if (name in given) inputs[name] = given[name];
    else if (input.default !== undefined) inputs[name] = input.default;
    else missing.push(name);
  }
  if (missing.length > 0) throw new UsageError(`The workflow ${workflow.name} needs ${missing.map((name) => `--input ${name}=...`).join(' ')}.`);
  return inputs;
}
