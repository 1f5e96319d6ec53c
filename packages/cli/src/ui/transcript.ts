import {
  attachmentLabels,
  summarizeCall,
  type ToolResult,
  type ToolResultMessage,
  type AgentEvent,
  type AgentMessage,
  type AgentRunResult,
  type ChatSession,
  type NoteMessage,
  type ToolCall,
  type UserMessage,
} from '@beans/core';
import { MarkdownStream, renderMarkdown } from './markdown.js';
import { S, lineWidth, span, wrapSpans, wrapText, type SpanStyle, type StyledLine } from './styled.js';
import { retryCause, retryLine, type RetryWait } from './retry-line.js';
import { renderTool, type ToolView } from './tool-view.js';
import { updateTaskProgress, type TaskProgress } from './task-view.js';
import { readExpandedOutput } from './tool-output.js';
import { TranscriptRows, type Block, type Entry, type EntryKind } from './transcript-rows.js';

export type { Block } from './transcript-rows.js';

const USER: SpanStyle = { color: 'cyan', bold: true };
const NOTE_STYLES: Record<NoteMessage['kind'], { icon: string; style: SpanStyle }> = {
  interrupted: { icon: '■ ', style: S.yellow },
  error: { icon: '✗ ', style: S.red },
  info: { icon: '', style: S.dim },
  compaction: { icon: '≡ ', style: S.dim },
};

/**
 * The transcript as rows: what is finished (committed, for <Static>) and what is still moving
 * (the streaming line, running tools, a retry notice). It listens to one session at a time and
 * holds no agent logic: it only turns events into rows.
 */
export class TranscriptStore {
  private readonly rows = new TranscriptRows();
  private stream?: { md: MarkdownStream; text: string; started: boolean; entry?: Entry };
  /** The newest finished tool, which Ctrl+O expands and collapses. */
  private lastTool?: ToolView;
  private tools: ToolView[] = [];
  /** A wait before the provider is asked again: counted down on screen, Esc stops it. */
  private retry?: RetryWait;
  private session?: ChatSession;
  private unsubscribe?: () => void;

  constructor(
    public width: number,
    private readonly changed: () => void,
    /** ui.markdown: false shows answers as the model wrote them. */
    private readonly markdown = true,
  ) {}

  setWidth(width: number): void {
    this.width = width;
    if (this.stream) this.stream.md.width = width;
  }

  /**
   * Lays the whole transcript out again at `width`: every row goes back to pending, for a fresh
   * <Static> on a cleared screen. A streaming answer starts a new stream from its text so far.
   */
  redraw(width: number): void {
    this.width = width;
    this.rows.redraw(width);
    const stream = this.stream;
    if (stream) {
      stream.md = new MarkdownStream(width, !this.markdown);
      stream.started = false;
      const rows = stream.md.push(stream.text);
      if (rows.length > 0) {
        this.rows.begin('assistant');
        stream.started = true;
        this.rows.append(rows);
      }
    }
  }

  /** `/clear`: forgets every entry but the header; the caller redraws. */
  clear(): void {
    this.rows.clear();
    this.lastTool = undefined;
  }

  get blocks(): Block[] {
    return this.rows.blocks;
  }

  bind(session: ChatSession): void {
    this.unsubscribe?.();
    this.session = session;
    this.stream = undefined;
    this.tools = [];
    this.retry = undefined;
    this.unsubscribe = session.subscribe((event) => this.handle(event));
  }

  dispose(): void {
    this.unsubscribe?.();
  }

  /** Rows committed since the last call, as a new block (see TranscriptRows.takeBlocks). */
  takeBlocks(maxRows = Infinity): Block[] {
    return this.rows.takeBlocks(maxRows);
  }

  /** Finished rows not yet handed to <Static>. */
  get backlog(): number {
    return this.rows.backlog;
  }

  get hasLive(): boolean {
    return this.stream !== undefined || this.tools.length > 0 || this.retry !== undefined;
  }

  /** Rows of the moving part, newest last; the caller clips them to the rows it can spare. */
  liveLines(frame: number, now: number): StyledLine[] {
    const out: StyledLine[] = [];
    // Rows still waiting for <Static> come before anything live; showing the live tail now
    // would put it above them for a moment.
    if (this.rows.backlog > 0) return out;
    if (this.stream) {
      const tail = this.stream.md.tail(this.width);
      if (tail.length > 0 && !this.stream.started && this.rows.lastKind) out.push([]);
      out.push(...tail);
    }
    for (const [index, tool] of this.tools.entries()) {
      if (index === 0 && this.rows.lastKind && this.rows.lastKind !== 'tool') out.push([]);
      out.push(...renderTool(tool, { width: this.width, frame, now, maxDetailRows: 8 }));
    }
    if (this.retry) out.push(retryLine(this.retry, now));
    return out;
  }

  header(text: StyledLine): void {
    this.add('header', (width) => wrapSpans(text, width));
  }

  /** A prompt; `below` are dim lines under it (the files `@path` attached). */
  user(text: string, suffix?: string, below: readonly string[] = []): void {
    const shown = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
    this.add('user', (width) => {
      const rows = wrapText(shown, width, USER, { first: [span('› ', USER)], continuation: [span('  ')] });
      if (suffix) rows[rows.length - 1].push(span(` ${suffix}`, S.dim));
      for (const line of below) rows.push(...wrapText(line, width, S.dim, { first: [span('  ')], continuation: [span('    ')] }));
      return rows;
    });
    this.changed();
  }

  note(kind: NoteMessage['kind'], text: string): void {
    const { icon, style } = NOTE_STYLES[kind];
    const body = kind === 'compaction' ? `Earlier turns were summarised: ${text.split('\n')[0]}` : text;
    // The icon marks the first line only; later lines (a stack with `debug`) sit under the text.
    const indent = [span(' '.repeat(icon.length))];
    this.add('note', (width) =>
      body
        .split('\n')
        .flatMap((line, index) => wrapSpans([span(line, style)], width, { first: index === 0 && icon ? [span(icon, style)] : indent, continuation: indent })),
    );
    this.changed();
  }

  /** A warning from start-up (settings, plugins): yellow, marked `!`. */
  warning(text: string): void {
    this.add('note', (width) => wrapText(`warning: ${text}`, width, S.yellow, { first: [span('! ', S.yellow)], continuation: [span('  ')] }));
    this.changed();
  }

  /** Rows a command printed; a function of the width lays them out again on a redraw. */
  output(lines: StyledLine[] | ((width: number) => StyledLine[])): void {
    const made = this.width;
    this.add(
      'output',
      typeof lines === 'function'
        ? lines
        : (width) => (width >= made ? lines : lines.flatMap((line) => (lineWidth(line) <= width ? [line] : wrapSpans(line, width)))),
    );
    this.changed();
  }

  /** The output of a `!command` the user ran, drawn like a finished shell call (Ctrl+O opens it). */
  commandResult(command: string, result: ToolResult): void {
    const status = result.isError ? 'error' : 'ok';
    const message: ToolResultMessage = {
      role: 'tool',
      toolCallId: `user-shell-${Date.now()}`,
      toolName: 'shell',
      content: result.content,
      isError: result.isError === true,
      status,
      details: result.details,
      timestamp: Date.now(),
    };
    this.commitTool({
      id: message.toolCallId,
      name: 'shell',
      summary: command,
      kind: 'execute',
      phase: status,
      startedAt: Date.now(),
      output: '',
      result: message,
    });
    this.changed();
  }

  private skillNotice(text: string): void {
    this.add('note', (width) => wrapText(text, width, S.dim, { first: [span('◆ ', S.magenta)], continuation: [span('  ')] }));
    this.changed();
  }

  /** Marks a running tool as waiting for (or no longer waiting for) the user's answer. */
  setWaiting(callId: string, waiting: boolean): void {
    // A subagent's question waits on the task that runs it.
    const tool = this.tools.find((view) => view.id === callId) ?? this.tools.find((view) => view.child?.currentCallId === callId);
    if (tool && (tool.phase === 'running' || tool.phase === 'waiting')) {
      tool.phase = waiting ? 'waiting' : 'running';
      this.changed();
    }
  }

  /** Replays a stored conversation (resume, start-up with --continue). */
  history(messages: readonly AgentMessage[], childOf?: (toolCallId: string) => TaskProgress | undefined): void {
    const calls = new Map<string, ToolCall>();
    for (const message of messages) {
      switch (message.role) {
        case 'user':
          this.userMessage(message);
          break;
        case 'assistant':
          if (message.content.trim()) {
            const text = message.content.trim();
            this.add('assistant', (width) => renderMarkdown(text, width, !this.markdown));
          }
          for (const call of message.toolCalls) calls.set(call.id, call);
          if (message.stopReason === 'error' && message.failure) this.note('error', message.failure.message);
          break;
        case 'tool': {
          const call = calls.get(message.toolCallId);
          this.commitTool({
            ...this.viewOf(call ?? { id: message.toolCallId, name: message.toolName, arguments: {} }),
            phase: message.status,
            result: message,
            child: childOf?.(message.toolCallId),
          });
          break;
        }
        case 'note':
          this.note(message.kind, message.text);
          break;
      }
    }
  }

  private handle(event: AgentEvent): void {
    switch (event.type) {
      case 'message_start':
        if (event.message.role === 'assistant') this.startStream();
        break;
      case 'message_update':
        this.retry = undefined;
        if (this.stream && event.delta) {
          this.stream.text += event.delta;
          this.streamRows(this.stream.md.push(event.delta));
        }
        break;
      case 'message_end':
        this.messageEnd(event.message);
        break;
      case 'tool_execution_start':
        this.tools.push({ ...this.viewOf(event.call), summary: event.summary, phase: 'running', startedAt: Date.now() });
        break;
      case 'tool_execution_update': {
        const tool = this.tools.find((view) => view.id === event.call.id);
        // Each update is whole lines (the shell batches them without a final newline): keep them apart.
        if (tool) tool.output = (tool.output ? `${tool.output.replace(/\n$/, '')}\n${event.text}` : event.text).slice(-4000);
        break;
      }
      case 'tool_execution_end': {
        const tool = this.tools.find((view) => view.id === event.call.id);
        if (tool) {
          tool.phase = event.result.status;
          tool.result = event.result;
        } else {
          // Calls skipped before they started have no start event.
          this.tools.push({ ...this.viewOf(event.call), phase: event.result.status, result: event.result });
        }
        this.flushFinishedTools();
        break;
      }
      case 'retry': {
        if (event.restart && this.stream) {
          // What was shown of the cut answer stays above this line; the answer starts again below.
          if (this.stream.entry) this.stream.entry.live = false;
          this.note('info', 'The connection dropped mid-answer; the answer starts again.');
          this.startStream();
        }
        this.retry = { until: Date.now() + event.delayMs, attempt: event.attempt, maxAttempts: event.maxAttempts, cause: retryCause(event.failure) };
        break;
      }
      case 'agent_end':
        this.agentEnd(event.result);
        break;
      case 'notice':
        this.note('info', event.text);
        break;
      case 'subagent': {
        const tool = this.tools.find((view) => view.id === event.toolCallId);
        if (tool) tool.child = updateTaskProgress(tool.child, event.agent, event.event);
        break;
      }
      case 'handoff':
        this.note('info', `→ ${event.to} has the conversation now (${event.trigger === 'match' ? 'routed: ' : ''}${event.reason}).`);
        break;
      default:
        break;
    }
    this.changed();
  }

  private messageEnd(message: AgentMessage): void {
    if (message.role === 'user') this.userMessage(message);
    else if (message.role === 'note') {
      this.note(message.kind, message.text);
      if (message.notice) this.warning(message.notice);
    } else if (message.role === 'assistant') this.endStream(message.content);
  }

  private userMessage(message: UserMessage): void {
    // A skill the agent or a trigger loaded is a notice, not something the user typed (a typed /skill is).
    if (message.origin === 'skill' && !message.display?.startsWith('/')) {
      const first = message.content.trim().split('\n')[0] ?? '';
      return this.skillNotice(message.display ?? `loaded a skill: ${first.length > 100 ? `${first.slice(0, 100)}…` : first}`);
    }
    const queued = message.origin === 'steering' || message.origin === 'follow_up';
    if (message.display) {
      const files = [
        ...attachedFiles(message.content).map((file) => `⎿ attached ${file.path} · ${file.lines} line${file.lines === 1 ? '' : 's'}`),
        ...attachmentLabels(message.parts).map((label) => `⎿ ${label}`),
      ];
      return this.user(message.display, queued ? '· sent while the agent worked' : undefined, files);
    }
    if (message.origin === 'command') {
      const first = message.content.trim().split('\n')[0] ?? '';
      return this.user(first.length > 100 ? `${first.slice(0, 100)}…` : first, `(${message.origin})`);
    }
    this.user(message.content, queued ? '· sent while the agent worked' : undefined);
  }

  private endStream(content: string): void {
    const stream = this.stream;
    if (!stream) return;
    // The final text is authoritative; normally it equals what streamed.
    const longer = content.length > stream.text.length && content.startsWith(stream.text);
    if (longer) this.streamRows(stream.md.push(content.slice(stream.text.length)));
    const final = longer ? content : stream.text;
    this.streamRows(stream.md.end());
    if (stream.entry) {
      stream.entry.live = false;
      stream.entry.render = (width) => renderMarkdown(final, width, !this.markdown);
    }
    this.stream = undefined;
  }

  private startStream(): void {
    this.stream = { md: new MarkdownStream(this.width, !this.markdown), text: '', started: false };
  }

  private streamRows(rows: StyledLine[]): void {
    const stream = this.stream;
    if (rows.length === 0 || !stream) return;
    if (!stream.started) {
      stream.started = true;
      // What a redraw shows of a cut answer: the text that streamed (the entry stays live until the end).
      const entry: Entry = { kind: 'assistant', live: true, render: (width) => renderMarkdown(stream.text, width, !this.markdown) };
      stream.entry = entry;
      this.rows.addEntry(entry);
    }
    this.rows.append(rows);
  }

  private agentEnd(result: AgentRunResult): void {
    this.retry = undefined;
    if (this.stream) this.endStream(this.stream.text);
    for (const tool of this.tools) if (tool.phase === 'running' || tool.phase === 'waiting') tool.phase = 'interrupted';
    this.flushFinishedTools();
    if (result.stopReason === 'error') this.note('error', result.failure?.message ?? 'The provider failed without saying why.');
    else if (result.stopReason === 'max_turns') this.note('interrupted', 'Stopped: the turn limit was reached (--max-turns).');
    else if (result.stopReason === 'max_budget') this.note('interrupted', 'Stopped: the budget limit was reached (--max-budget-usd).');
    else if (result.stopReason === 'loop')
      this.note(
        'interrupted',
        `Stopped: loop detected (${result.loop ?? 'the agent repeated itself'}). Tell it what to do differently, or send a message to let it go on.`,
      );
  }

  /** Finished tools move to the transcript in the model's order, never ahead of a running one. */
  private flushFinishedTools(): void {
    while (this.tools.length > 0 && this.tools[0].phase !== 'running' && this.tools[0].phase !== 'waiting') {
      this.commitTool(this.tools.shift()!);
    }
  }

  /**
   * Ctrl+O: shows the newest finished tool's whole output, or folds it back. Returns false when
   * there is no finished tool; the caller redraws the transcript otherwise.
   */
  async toggleLastTool(): Promise<boolean> {
    const view = this.lastTool;
    if (!view) return false;
    view.expanded = view.expanded ? undefined : await readExpandedOutput(view.result);
    return true;
  }

  private commitTool(view: ToolView): void {
    if (view.result) this.lastTool = view;
    this.add('tool', (width) => renderTool(view, { width }));
  }

  private viewOf(call: ToolCall): ToolView {
    const tool = this.session?.tools.get(call.name);
    const summary = summarizeCall(tool, call.arguments);
    return { id: call.id, name: call.name, summary, kind: tool?.kind, phase: 'running', startedAt: Date.now(), output: '' };
  }

  /** Commits a finished entry at the current width and keeps it for redraws. */
  private add(kind: EntryKind, render: (width: number) => StyledLine[]): void {
    this.rows.add(kind, render, this.width);
  }
}

/** Files `@path` attached to a prompt, in the form core's expandFileReferences writes them. */
function attachedFiles(content: string): { path: string; lines: number }[] {
  const headers = [...content.matchAll(/\n\nContents of (.+?):\n```\n/g)];
  return headers.map((header, index) => {
    const start = header.index + header[0].length;
    const end = index + 1 < headers.length ? headers[index + 1].index : content.length;
    const body = content.slice(start, end).replace(/\n```\s*$/, '');
    return { path: header[1], lines: body ? body.split('\n').length : 0 };
  });
}
