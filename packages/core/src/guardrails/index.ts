export { GUARDRAIL_ACTIONS, GUARDRAIL_BUILTINS, guardrailsSchema, type GuardrailRule, type GuardrailsSettings } from './schema.js';
export {
  checkInput,
  checkOutput,
  compileGuardrails,
  parseGuardrails,
  redactSecrets,
  type CompiledRule,
  type GuardrailSource,
  type GuardrailVerdict,
  type Guardrails,
} from './guardrails.js';
export { guardrailToolHook } from './tool-results.js';
export {
  checkInputFunctions,
  checkOutputFunctions,
  type GuardrailFunctionOutput,
  type GuardrailFunctions,
  type GuardrailTrip,
  type InputGuardrail,
  type OutputGuardrail,
} from './function-guardrails.js';
