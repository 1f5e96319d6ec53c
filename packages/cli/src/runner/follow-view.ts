import { createInterface } from 'node:readline';
import { hostname, userInfo } from 'node:os';
import type { Answer, BackgroundSession, BackgroundSessions } from '@beans/core/runners';
import { stripTerminalControls } from '../output/terminal-safe.js';

// `beans attach ID` on a runner's session: its conversation as it goes, read from the database (on
// any machine that reaches it), and its permission questions answered here. Lines typed answer the
// oldest open question: y (once), a (always this session), n [reason] (deny). Ctrl+C leaves; the
// session goes on.

type Message = Record<string, unknown>;

interface Question {
  requestId: string;
  tool: string;
  input: unknown;
}

export async function followSession(sessions: BackgroundSessions, session: BackgroundSession): Promise<number> {
  const out = (line: string) => process.stdout.write(`${stripTerminalControls(line)}\n`);
  out(`Following background session ${session.id} (${session.state}${session.runner ? ` on runner ${session.runner}` : ''}): ${session.title}`);
  const open: Question[] = [];
  const by = `${userInfo().username}@${hostname()}`;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  const lines = createInterface({ input: process.stdin, terminal: false });
  const ask = () => {
    const question = open[0];
    if (question) out(`? Allow ${question.tool} ${describeInput(question.input)}  [y] once, [a] always, [n] no (a reason may follow)`);
  };
  lines.on('line', (line) => {
    const question = open[0];
    const word = line.trim();
    if (!question || !word) return;
    const answer: Answer | undefined = /^(y|yes)$/i.test(word)
      ? { behavior: 'allow' }
      : /^(a|always)$/i.test(word)
        ? { behavior: 'allow', always: true }
        : /^(n|no)\b/i.test(word)
          ? { behavior: 'deny', ...(word.replace(/^(n|no)\s*/i, '') ? { message: word.replace(/^(n|no)\s*/i, '') } : {}) }
          : undefined;
    if (!answer) return out('  answer y, a or n');
    void sessions.answer(session.id, question.requestId, answer, by).then((first) => {
      if (!first) out('  (someone else answered it first)');
    });
  });
  let exitCode: number | undefined;
  let streaming = false;
  try {
    await sessions.follow(
      session.id,
      0,
      (message) => {
        const type = message.type as string;
        if (type === 'stream_event') {
          const event = message.event as { type: string; delta?: { type: string; text?: string } };
          if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta' && event.delta.text) {
            process.stdout.write(stripTerminalControls(event.delta.text));
            streaming = true;
          }
          return;
        }
        if (streaming && type !== 'stream_event') {
          process.stdout.write('\n');
          streaming = false;
        }
        if (type === 'permission_request') {
          // Asked again by a runner that took the session over: the same question.
          if (!open.some((question) => question.requestId === message.request_id)) {
            open.push({ requestId: message.request_id as string, tool: message.tool_name as string, input: message.input });
            if (open.length === 1) ask();
          }
        } else if (type === 'permission_resolved') {
          const index = open.findIndex((question) => question.requestId === message.request_id);
          if (index >= 0) {
            open.splice(index, 1);
            out(`  ${message.behavior === 'allow' ? 'allowed' : message.behavior === 'deny' ? 'denied' : 'withdrawn (the turn stopped)'}`);
            if (index === 0) ask();
          }
        } else if (type === 'result') exitCode = resultCode(message);
        for (const line of render(message)) out(line);
      },
      stop.signal,
    );
  } finally {
    process.off('SIGINT', onSignal);
    lines.close();
  }
  if (stop.signal.aborted) {
    out(`Left session ${session.id}; it goes on with its runner. beans attach ${session.id} comes back to it.`);
    return 130;
  }
  const ended = await sessions.find(session.id);
  return ended?.exitCode ?? exitCode ?? 0;
}

/** A message as the lines a person reads (partial text was printed as it came). */
function render(message: Message): string[] {
  switch (message.type) {
    case 'system':
      if (message.subtype === 'runner')
        return [`── runner ${String(message.runner)} ${message.resumed ? 'took the session over (it goes on from its recorded steps)' : 'took the session'}`];
      if (message.subtype === 'init')
        return [`── ${String(message.provider)} ${String(message.model)}, ${String(message.permissionMode)} mode, in ${String(message.cwd)}`];
      return [];
    case 'user': {
      const content = (message.message as { content?: unknown }).content;
      if (typeof content === 'string') return [`> ${content}`];
      if (!Array.isArray(content)) return [];
      return content
        .filter((block: { type?: string }) => block.type === 'tool_result')
        .map((block: { content?: unknown; is_error?: boolean }) => `  ⎿ ${block.is_error ? 'error: ' : ''}${firstLine(resultText(block.content))}`);
    }
    case 'assistant': {
      const content = ((message.message as { content?: unknown[] }).content ?? []) as { type: string; name?: string; input?: unknown }[];
      return content.filter((block) => block.type === 'tool_use').map((block) => `⏺ ${String(block.name)} ${describeInput(block.input)}`);
    }
    case 'result': {
      const errors = (message.errors as string[] | undefined) ?? [];
      const branch = typeof message.branch === 'string' ? `, branch ${message.branch} (${String(message.change)})` : '';
      return [`── ${message.is_error ? `failed${errors.length ? `: ${errors.join(' ')}` : ''}` : 'done'}${branch}`];
    }
    default:
      return [];
  }
}

function resultCode(message: Message): number {
  if (!message.is_error) return 0;
  return message.subtype === 'error_max_turns' || message.subtype === 'error_max_budget_usd' ? 4 : 1;
}

function describeInput(input: unknown): string {
  if (input && typeof input === 'object') {
    const fields = input as Record<string, unknown>;
    const main = fields.command ?? fields.path ?? fields.file_path ?? fields.pattern;
    if (typeof main === 'string') return firstLine(main);
  }
  return firstLine(JSON.stringify(input) ?? '');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join(' ');
  return '';
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
