import { userMessage } from '../agent/chat-session.js';
import type { QueuedMessage, UserMessage } from '../agent/types.js';
import type { ContentPart } from '../llm/types.js';
import type { Guardrails } from '../guardrails/index.js';
import { gateUserPrompt, type HookRunner } from '../hooks/index.js';
import { isMemoryNote } from '../memory/index.js';
import { parseSlashInput } from '../plugins/index.js';
import { contentText, type ToolResult } from '../tools/tool.js';
import type { Attached } from './attach-files.js';
import type { Live } from './live.js';
import type { Prepared } from './prepare-prompt.js';
import type { TurnOutcome } from './run-turn.js';
import type { SessionCommand } from './session-commands.js';

/** What a front end hands to `AgentSession.submit`: the input as typed or sent, and what came with it. */
export interface SubmitInput {
  /** The words: a prompt, `/command args`, and from a person also `!command` or `# note`. */
  text: string;
  /** How the conversation shows the words when that differs (a long paste collapsed). */
  display?: string;
  /** Pictures and documents sent beside the words (an SDK program's image blocks, an editor's resources). */
  parts?: ContentPart[];
  /** The message's id when the sender chose it (the SDK's uuid). */
  uuid?: string;
  /**
   * A person typed it at a prompt (the chat, an editor, the web view): then `!command` runs in the
   * workspace and `# note` is a memory note. From a program (one-shot, `query()`, the SDK, another
   * agent) both are words for the model: nobody typed the command.
   */
  typed?: boolean;
  /** Stops the preparation (hooks, commands' shell lines) and the turn. */
  signal?: AbortSignal;
}

/** How a submission ended; each front end renders these its own way. */
export type SubmitOutcome =
  /** A turn ran (or its prompt was refused by a guardrail or a UserPromptSubmit hook: `turn.refused`). */
  | { kind: 'turn'; turn: TurnOutcome }
  /** A turn was already running: the prepared message waits for its next tool batch (steering). */
  | { kind: 'queued'; queued: QueuedMessage }
  /** `!command`: it ran; its output joined the conversation for the model's next turn. */
  | { kind: 'shell'; command: string; result: ToolResult }
  /** `# note`: where it goes (project or user memory) is the front end's question (`saveMemoryNote`). */
  | { kind: 'note'; text: string }
  /** A session command (`/compact`, `/clear`, `/model`, `/cost`, `/context`) ran and said this. */
  | { kind: 'command'; name: string; text: string }
  /** Nothing was sent, and why: an unknown command, an unreadable attachment, a busy session. */
  | { kind: 'refused'; reason: string }
  /** The signal stopped it before the model was asked: nothing was sent. */
  | { kind: 'stopped' };

export interface SubmitParts {
  live: Pick<Live, 'session' | 'notices'>;
  preparePrompt(text: string): Promise<Prepared>;
  attachFiles(message: UserMessage): Promise<Attached>;
  /** One turn with its gates and hooks (the turn runner part). */
  runTurn(prompts: UserMessage[], signal?: AbortSignal): Promise<TurnOutcome>;
  runUserShell(command: string, signal: AbortSignal): Promise<ToolResult>;
  commands: () => readonly SessionCommand[];
  /** For messages queued into a running turn, which pass the prompt's gates first. */
  hooks?: HookRunner;
  guardrails: Guardrails;
}

/**
 * The one way input becomes a turn, for every front end: session commands, `!` lines and `#` notes
 * (typed by a person), slash commands and skills expanded, `@file` references attached, then a turn
 * with its gates and hooks, or, while a turn runs, the prepared message queued into it.
 */
export function createSubmit(parts: SubmitParts): (input: SubmitInput) => Promise<SubmitOutcome> {
  const { live } = parts;
  // Turns accepted and not yet ended: from the moment a turn is accepted (its prompt is prepared
  // first, hooks may take seconds) until it ends, more input steers it instead of starting another.
  let active = 0;
  const busy = () => active > 0 || live.session.isRunning;

  return async (input) => {
    const signal = input.signal ?? new AbortController().signal;
    const text = input.text.trim();
    if (input.typed && isMemoryNote(text)) return { kind: 'note', text };
    if (input.typed && text.length > 1 && text.startsWith('!')) {
      const command = text.slice(1).trim();
      if (busy()) return { kind: 'refused', reason: `!${command} waits for an idle session: stop the agent first (Esc).` };
      return runShellLine(command, signal);
    }
    const slash = parseSlashInput(text);
    const command = slash && parts.commands().find((candidate) => candidate.name === slash.name);
    if (slash && command) {
      if (command.idleOnly && busy()) return { kind: 'refused', reason: `/${command.name} waits for an idle session: stop the agent first (Esc).` };
      return { kind: 'command', name: command.name, text: await command.run(slash.args, signal) };
    }

    let owns = !busy();
    if (owns) active++;
    try {
      const prepared = await prepare(input);
      if (signal.aborted) return { kind: 'stopped' };
      if ('error' in prepared) return { kind: 'refused', reason: prepared.error };
      if (!owns) {
        if (busy()) return await queue(prepared.messages, signal);
        // The turn it was meant for ended while this was prepared: it is a turn of its own.
        owns = true;
        active++;
      }
      return { kind: 'turn', turn: await parts.runTurn(prepared.messages, signal) };
    } finally {
      if (owns) active--;
    }
  };

  async function runShellLine(command: string, signal: AbortSignal): Promise<SubmitOutcome> {
    const result = await parts.runUserShell(command, signal);
    // The conversation shows `!command`; the model reads the command and its output with the next message.
    live.session.append(userMessage(`I ran a shell command in the workspace myself:\n$ ${command}\n${contentText(result.content)}`, 'prompt', `!${command}`));
    return { kind: 'shell', command, result };
  }

  /** Commands expanded and the typed words' `@file` references attached; the sender's parts and uuid ride on the words. */
  async function prepare(input: SubmitInput): Promise<{ messages: UserMessage[] } | { error: string }> {
    const prepared = await parts.preparePrompt(input.text);
    if ('error' in prepared) return prepared;
    const messages: UserMessage[] = [];
    for (const [index, message] of prepared.messages.entries()) {
      const last = index === prepared.messages.length - 1;
      const typed = message.origin === undefined || message.origin === 'prompt';
      const attached = typed ? await parts.attachFiles(message) : { message };
      if ('error' in attached) return attached;
      messages.push(last ? withSender(attached.message, input, typed) : attached.message);
    }
    return { messages };
  }

  /**
   * A message for the running turn passes the same gates as a prompt (input guardrails,
   * UserPromptSubmit hooks) before it is queued; a refused one is never sent.
   */
  async function queue(messages: UserMessage[], signal: AbortSignal): Promise<SubmitOutcome> {
    let queued: QueuedMessage | undefined;
    for (const message of messages) {
      const gate = await gateUserPrompt(message.content, parts.guardrails, parts.hooks, signal);
      live.notices(gate.userMessages);
      if (!gate.allowed) return { kind: 'refused', reason: `The message was blocked: ${gate.reason}` };
      if (gate.stop) return { kind: 'refused', reason: `The message was stopped: ${gate.stop.reason}` };
      const content = gate.context ? `${gate.prompt}\n\n<context>\n${gate.context}\n</context>` : gate.prompt;
      if (signal.aborted) return { kind: 'stopped' };
      // The queue and the transcript show the words, not the context a hook added.
      queued = live.session.steer(content === message.content ? message : { ...message, content, display: message.display ?? message.content });
    }
    return queued ? { kind: 'queued', queued } : { kind: 'refused', reason: 'Type a message first.' };
  }
}

/** The sender's own parts, uuid and display go on the message that carries its words. */
function withSender(message: UserMessage, input: SubmitInput, typed: boolean): UserMessage {
  const parts = [...(message.parts ?? []), ...(input.parts ?? [])];
  return {
    ...message,
    ...(parts.length > 0 ? { parts } : {}),
    ...(input.uuid ? { uuid: input.uuid } : {}),
    ...(typed && input.display !== undefined ? { display: input.display } : {}),
  };
}
