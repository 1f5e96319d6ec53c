import type { UserMessage } from '../agent/types.js';
import { expandAttachments, type AttachOptions } from '../plugins/index.js';

export type Attached = { message: UserMessage } | { error: string };

/**
 * A typed prompt with its `@path` files attached: text files follow its words, pictures, PDFs and
 * notebooks ride along as parts (after any the message already carries). The words typed stay the
 * message's `display`. An unreadable picture or a denied file is an error and nothing is sent.
 */
export async function attachFileReferences(message: UserMessage, workspaceRoot: string, options: AttachOptions = {}): Promise<Attached> {
  const expanded = await expandAttachments(message.content, workspaceRoot, options);
  if ('error' in expanded) return expanded;
  if (expanded.text === message.content && expanded.parts.length === 0) return { message };
  const parts = [...expanded.parts, ...(message.parts ?? [])];
  return { message: { ...message, content: expanded.text, display: message.display ?? message.content, ...(parts.length > 0 ? { parts } : {}) } };
}
