import type { ChatSession, UsageTotals } from '@beans/core';
import type { ChatAgent } from '../chat-agent.js';
import type { AskQueue } from './ask-queue.js';
import type { Builtin } from './command-kit.js';
import type { ControllerOptions } from './controller-options.js';
import type { InputBox } from './input-box.js';
import type { Picker } from './picker.js';
import type { StatusCommand } from './status-command.js';
import type { ThemeName } from './theme.js';
import type { TranscriptStore } from './transcript.js';

/**
 * The chat controller as its key bindings, pickers and built-in commands see it (controller.ts
 * implements it); named apart so those files and the controller do not import each other.
 */
export interface ChatView {
  readonly host: ChatAgent;
  readonly options: ControllerOptions;
  readonly transcript: TranscriptStore;
  readonly input: InputBox;
  readonly questions: AskQueue;
  readonly session: ChatSession;
  readonly statusCommand?: StatusCommand;
  readonly usage: UsageTotals;
  readonly running: boolean;
  readonly busy: boolean;
  picker?: Picker;
  task?: { label: string; startedAt: number; abort: AbortController };
  hint?: { text: string; until: number };
  showTodos: boolean;
  showKeys: boolean;
  theme: ThemeName;
  changed(urgent?: boolean): void;
  redraw(width?: number): void;
  interrupt(): void;
  exit(code: number): void;
  submitTyped(text: string, display?: string): void;
  runBuiltin(builtin: Builtin, args: string): void;
  runCommand(name: string, args?: string): void;
  runTask(label: string, task: (signal: AbortSignal) => Promise<void>): Promise<void>;
  reloadConversation(): void;
  describeError(error: unknown): string;
}
