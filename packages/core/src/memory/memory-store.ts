/**
 * Where the `memory` tool keeps what the agent learned about the project, and where the facts come
 * back from for the next session's system prompt. The default is the workspace's
 * `.beans/memory.md`; a program passes its own (`memory` option) to keep them in its database.
 */
export interface MemoryStore {
  /** Every fact, oldest first, read once when a session is built. */
  list(): Promise<readonly string[]>;
  /** Adds one fact (one line, already tidied); `added: false` when the store already holds it. */
  add(fact: string): Promise<{ added: boolean }>;
}
