import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { ContentPart } from '@beans/core';

export interface PromptInput {
  /** What the model reads: the typed text, then mentioned files and attached context. */
  text: string;
  /** What people typed (a `/command` stays recognisable; the session log shows it). */
  display: string;
  /** Images, sent beside the text. */
  parts: ContentPart[];
}

/**
 * An ACP prompt as a Beans user message. Text blocks are the typed words; a resource link names a
 * file the model may read (as `@path` inside the workspace); an embedded resource is a file the
 * editor attached with its text (possibly unsaved), given to the model in full; images become
 * image parts. Audio is not taken (the capability is not advertised) and is named, not dropped.
 */
export function promptInput(blocks: readonly ContentBlock[], root: string): PromptInput {
  const typed: string[] = [];
  const attached: string[] = [];
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        typed.push(block.text);
        break;
      case 'resource_link':
        typed.push(mention(block.uri, root));
        break;
      case 'resource':
        if ('text' in block.resource) {
          attached.push(`<context ref="${mention(block.resource.uri, root)}">\n${block.resource.text}\n</context>`);
        } else if (block.resource.mimeType?.startsWith('image/')) {
          parts.push({ type: 'image', mimeType: block.resource.mimeType, data: block.resource.blob });
        } else {
          attached.push(
            `(The user attached ${mention(block.resource.uri, root)}, a binary file of type ${block.resource.mimeType ?? 'unknown'}; it is not included.)`,
          );
        }
        break;
      case 'image':
        parts.push({ type: 'image', mimeType: block.mimeType, data: block.data });
        break;
      case 'audio':
        attached.push('(The user attached audio, which Beans cannot take; it is not included.)');
        break;
    }
  }
  // Text blocks arrive split around mentions ("fix ", "@a.ts", " please"): join them as typed.
  const display = typed.join('').trim() === '' ? typed.join('\n') : joinTyped(typed);
  const text = [display, ...attached].filter((piece) => piece !== '').join('\n\n');
  return { text, display, parts };
}

function joinTyped(pieces: string[]): string {
  return pieces.reduce((joined, piece) => (joined === '' || /\s$/.test(joined) || /^\s/.test(piece) ? joined + piece : `${joined} ${piece}`), '');
}

/** `@src/a.ts` for a file inside the workspace; the URI itself otherwise. */
function mention(uri: string, root: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    const file = fileURLToPath(uri);
    const relative = path.relative(root, file);
    return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `@${relative}` : `@${file}`;
  } catch {
    return uri;
  }
}
