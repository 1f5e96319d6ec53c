import type { ChatAgent } from '../chat-agent.js';
import type { Picker } from './picker.js';

/** Asks where a `#` note goes: the project's AGENTS.md or the user's memory file. */
export function memoryNotePicker(host: ChatAgent, text: string, report: (kind: 'info' | 'error', line: string) => void): Picker {
  return {
    title: 'Save this note to',
    selected: 0,
    items: [
      { value: 'project', label: 'Project memory', detail: 'AGENTS.md in this repository, shared with the team' },
      { value: 'user', label: 'User memory', detail: 'your own AGENTS.md, read in every project' },
    ],
    async onSelect(target) {
      try {
        report('info', await host.saveMemoryNote(target === 'user' ? 'user' : 'project', text));
      } catch (error) {
        report('error', error instanceof Error ? error.message : String(error));
      }
    },
  };
}
