import { randomUUID } from 'node:crypto';

const PREFIX = 'beans_';

/** An id for a tool call the model sent without one (Ollama, older Gemini models). */
export function newToolCallId(): string {
  return `${PREFIX}${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

/** True for ids Beans made up: those must not be sent back to the provider as if they were its own. */
export function isGeneratedToolCallId(id: string): boolean {
  return id.startsWith(PREFIX);
}
