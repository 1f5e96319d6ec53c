import path from 'node:path';
import { readFileConfined, statOrUndefined } from '../tools/file-io.js';
import { appendMemoryFact, MEMORY_FILE } from './memory-file.js';
import type { MemoryStore } from './memory-store.js';

/** The default store: `.beans/memory.md` in the workspace, one `- fact` line each, shared by every Beans process under a lock. */
export function fileMemoryStore(workspaceRoot: string): MemoryStore {
  const file = path.join(workspaceRoot, MEMORY_FILE);
  return {
    async list() {
      if (!(await statOrUndefined(file))?.isFile()) return [];
      const text = (await readFileConfined(workspaceRoot, file)).toString('utf8');
      return text
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.slice(2).trim());
    },
    add: async (fact) => ({ added: (await appendMemoryFact(workspaceRoot, fact)).added }),
  };
}

/** A program's store as the system prompt's memory section (what `.beans/memory.md` is otherwise). */
export function memoryStoreText(facts: readonly string[]): string {
  return facts.length === 0 ? '' : ['Durable facts recorded about this project (build commands, conventions).', ...facts.map((fact) => `- ${fact}`)].join('\n');
}
