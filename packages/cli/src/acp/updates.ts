import type { SessionUpdate, ToolCallContent, ToolCallStatus, PlanEntry } from '@agentclientprotocol/sdk';
import type { AgentEvent, AgentMessage, ContentPart, ToolCall, ToolResultMessage, ToolStatus } from '@beans/core';
import { presentToolCall, type ToolPresentation } from './tool-kinds.js';

/** Shown text of one tool result or live output is kept to this many characters (its end, for output). */
const MAX_SHOWN_CHARS = 64 * 1024;

/**
 * Turns one session's core events into ACP `session/update`s: answer and reasoning chunks, tool
 * calls with their progress and results, the plan from `todo_write`, and a subagent's progress on
 * the `task` call that runs it. Also replays a stored conversation the same way (`session/load`).
 */
export class UpdateTranslator {
  /** Calls already announced with `tool_call`, with how they were presented. */
  private readonly calls = new Map<string, { call: ToolCall; presentation: ToolPresentation }>();
  /** Live output of running calls (shell lines). */
  private readonly output = new Map<string, string>();
  /** Progress lines of subagents, by the `task` call that runs them. */
  private readonly children = new Map<string, string[]>();

  constructor(
    private readonly root: string,
    private readonly send: (update: SessionUpdate) => void,
  ) {}

  event(event: AgentEvent): void {
    switch (event.type) {
      case 'message_update':
        if (event.thinking)
          this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.thinking }, ...messageId(event.message.id) });
        if (event.delta) this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta }, ...messageId(event.message.id) });
        if (event.toolCall) this.announce(event.toolCall, 'pending');
        return;
      case 'tool_execution_start':
        if (!this.calls.has(event.call.id)) this.announce(event.call, 'in_progress');
        else this.send({ sessionUpdate: 'tool_call_update', toolCallId: event.call.id, status: 'in_progress' });
        return;
      case 'tool_execution_update': {
        const text = cutStart((this.output.get(event.call.id) ?? '') + event.text);
        this.output.set(event.call.id, text);
        this.send({ sessionUpdate: 'tool_call_update', toolCallId: event.call.id, content: [textContent(fenced(text))] });
        return;
      }
      case 'tool_execution_end':
        this.output.delete(event.call.id);
        this.finish(event.call, event.result);
        return;
      case 'subagent':
        this.child(event.toolCallId, event.agent, event.event);
        return;
      default:
        return;
    }
  }

  /** A stored conversation as the updates a live one would have sent (`session/load`). */
  replay(messages: readonly AgentMessage[]): void {
    const calls = new Map<string, ToolCall>();
    for (const message of messages) {
      if (message.role === 'user') {
        this.send({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: message.display ?? message.content } });
      } else if (message.role === 'assistant') {
        for (const reasoning of message.reasoning ?? [])
          if (reasoning.text) this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: reasoning.text }, ...messageId(message.id) });
        if (message.content) this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: message.content }, ...messageId(message.id) });
        for (const call of message.toolCalls) {
          calls.set(call.id, call);
          // The file may have changed since: old text comes from the call, never from today's disk.
          this.announce(call, 'pending', false);
        }
      } else if (message.role === 'tool') {
        const call = calls.get(message.toolCallId) ?? { id: message.toolCallId, name: message.toolName, arguments: {} };
        this.finish(call, message);
      }
    }
  }

  private announce(call: ToolCall, status: ToolCallStatus, readDisk = true): void {
    const presentation = presentToolCall(call.name, call.arguments, this.root, readDisk);
    this.calls.set(call.id, { call, presentation });
    this.send({
      sessionUpdate: 'tool_call',
      toolCallId: call.id,
      title: presentation.title,
      kind: presentation.kind,
      status,
      locations: presentation.locations,
      rawInput: call.arguments,
      ...(presentation.diff ? { content: presentation.diff } : {}),
    });
  }

  private finish(call: ToolCall, result: ToolResultMessage): void {
    const known = this.calls.get(call.id);
    this.calls.delete(call.id);
    this.children.delete(call.id);
    const presentation = known?.presentation ?? presentToolCall(call.name, call.arguments, this.root, false);
    const ok = result.status === 'ok' && !result.isError;
    const content: ToolCallContent[] =
      ok && presentation.diff ? presentation.diff : resultContent(result, presentation.kind === 'execute' || presentation.kind === 'read');
    this.send({
      sessionUpdate: 'tool_call_update',
      toolCallId: call.id,
      status: acpStatus(result.status, result.isError),
      content,
      rawOutput: { status: result.status },
    });
    if (ok && call.name === 'todo_write') this.send({ sessionUpdate: 'plan', entries: planEntries(result, call.arguments) });
  }

  /** A subagent's progress, as lines on the `task` call that runs it (ACP has no nested calls). */
  private child(toolCallId: string, agent: string, event: AgentEvent): void {
    let line: string | undefined;
    if (event.type === 'tool_execution_start') line = `- ${presentToolCall(event.call.name, event.call.arguments, this.root, false).title}`;
    else if (event.type === 'tool_execution_end' && event.result.isError) line = `  (${event.call.name} failed)`;
    else if (event.type === 'subagent') return this.child(toolCallId, agent, event.event);
    if (!line) return;
    const lines = this.children.get(toolCallId) ?? [`${agent} is working:`];
    lines.push(line);
    this.children.set(toolCallId, lines);
    this.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [textContent(cutStart(lines.join('\n')))] });
  }
}

function messageId(id: string | undefined): { messageId?: string } {
  return id ? { messageId: id } : {};
}

function acpStatus(status: ToolStatus, isError: boolean): ToolCallStatus {
  return status === 'ok' && !isError ? 'completed' : 'failed';
}

function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

function resultContent(result: ToolResultMessage, asCode: boolean): ToolCallContent[] {
  const parts: ContentPart[] = typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : result.content;
  return parts.map((part) =>
    part.type === 'image'
      ? { type: 'content', content: { type: 'image', data: part.data, mimeType: part.mimeType } }
      : textContent(asCode && !result.isError ? fenced(cutEnd(part.text)) : cutEnd(part.text)),
  );
}

/** Output in a fence long enough that backticks inside it cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text.replace(/\n$/, '')}\n${fence}`;
}

function cutEnd(text: string): string {
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}\n[… cut]` : text;
}

function cutStart(text: string): string {
  return text.length > MAX_SHOWN_CHARS ? text.slice(text.length - MAX_SHOWN_CHARS) : text;
}

function planEntries(result: ToolResultMessage, args: Record<string, unknown>): PlanEntry[] {
  const todos =
    result.details?.kind === 'todos' ? result.details.todos : Array.isArray(args.todos) ? (args.todos as { content?: unknown; status?: unknown }[]) : [];
  return todos.map((todo) => ({
    content: typeof todo.content === 'string' ? todo.content : '',
    priority: 'medium',
    status: todo.status === 'completed' || todo.status === 'in_progress' ? todo.status : 'pending',
  }));
}
