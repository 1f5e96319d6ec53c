import { readFileSync } from 'node:fs';
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { isSafeSessionId, type SessionStore } from '../session/index.js';

const PREFIX = 'beans://sessions/';
/** A session file is JSON Lines: a header, then one record per message or change (docs/sessions.md). */
const MIME_TYPE = 'application/x-ndjson';

export function sessionUri(id: string): string {
  return `${PREFIX}${id}`;
}

export const SESSION_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${PREFIX}{id}`,
  name: 'session',
  title: 'A Beans session transcript',
  description: 'A session of this workspace as Beans stores it: a JSON Lines file, read-only. Ids as `beans sessions list` shows them.',
  mimeType: MIME_TYPE,
};

/** The workspace's sessions, most recently active first. */
export function sessionResources(store: SessionStore): Resource[] {
  return store.list().map((session) => ({
    uri: sessionUri(session.id),
    name: session.id,
    title: session.title ?? (session.firstPrompt || session.id),
    description: `${session.prompts} prompt${session.prompts === 1 ? '' : 's'}, ${session.provider} ${session.model}, last active ${session.lastActivity}`,
    mimeType: MIME_TYPE,
  }));
}

/**
 * One session's transcript. Only `beans://sessions/<id>` of this workspace's store: an id is a file
 * name Beans made (no `/`, no `..`), so a URI can never name another file.
 */
export function readSessionResource(store: SessionStore, uri: string): ReadResourceResult {
  const id = uri.startsWith(PREFIX) ? uri.slice(PREFIX.length) : undefined;
  if (id === undefined || !isSafeSessionId(id)) {
    throw new McpError(ErrorCode.InvalidParams, `${uri} is not a Beans session: the resources are ${PREFIX}<id>, as resources/list gives them.`);
  }
  let text: string;
  try {
    text = readFileSync(store.pathOf(id), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new McpError(ErrorCode.InvalidParams, `No session ${id} in this workspace.`);
    throw error;
  }
  return { contents: [{ uri, mimeType: MIME_TYPE, text }] };
}
