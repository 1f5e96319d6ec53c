import path from 'node:path';
import type { ClientCapabilities, ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest } from '@agentclientprotocol/sdk';
import type { EditorFiles } from '@beans/core';

export interface EditorFsRequests {
  read(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  write(params: WriteTextFileRequest): Promise<unknown>;
}

/**
 * The editor's buffers as core's EditorFiles, for the capabilities the client offered
 * (`fs.readTextFile`, `fs.writeTextFile`); undefined when it offers neither, and the tools use the
 * disk. Core's file tools confine every path to the workspace before calling these; a path outside
 * `root` is refused here as well, so the editor is never asked about anything else.
 */
export function editorFiles(
  capabilities: ClientCapabilities,
  session: () => { sessionId: string; root: string },
  requests: EditorFsRequests,
): EditorFiles | undefined {
  const fs = capabilities.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  const inside = (absolute: string) => {
    const relative = path.relative(session().root, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${absolute} is outside the workspace; the editor is not asked for it.`);
    return absolute;
  };
  return {
    ...(fs.readTextFile
      ? { readText: async (absolute: string) => (await requests.read({ sessionId: session().sessionId, path: inside(absolute) })).content }
      : {}),
    ...(fs.writeTextFile
      ? {
          writeText: async (absolute: string, text: string) =>
            void (await requests.write({ sessionId: session().sessionId, path: inside(absolute), content: text })),
        }
      : {}),
  };
}
