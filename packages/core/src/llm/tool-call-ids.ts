import { randomHex } from '../random-ids.js';

const PREFIX = 'beans_';

/** An id for a tool call the model sent without one (Ollama, older Gemini models): unique, no secret. */
export function newToolCallId(): string {
  return `${PREFIX}${randomHex(8)}`;
}

/** True for ids Beans made up: those must not be sent back to the provider as if they were its own. */
export function isGeneratedToolCallId(id: string): boolean {
  return id.startsWith(PREFIX);
}
