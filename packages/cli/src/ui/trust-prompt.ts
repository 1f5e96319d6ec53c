import path from 'node:path';
import {
  answerTrustQuestion,
  approveDeclaration,
  describeDeclaration,
  showSettingKey,
  showSettingValue,
  type ApprovalQuestion,
  type Declaration,
  type TrustQuestion,
} from '@beans/core';
import { KeyDecoder, type KeyEvent } from './keys.js';
import { TypingGate } from './typing-gate.js';

// The workspace-trust question, asked in the terminal before the chat mounts (no Ink: it must not
// depend on the chat being built, and it decides how the chat is built). Like the permission prompt,
// it takes no key sent before it was drawn nor any typed at speed (a prompt typed ahead, its Enter
// among them, would trust the folder or approve a server: typing-gate.ts), and an answer is a
// selection confirmed with Enter.

type TrustChoice = 'trust' | 'trust-parent' | 'untrust' | 'not-now' | 'interrupted';

interface Option {
  choice: Exclude<TrustChoice, 'not-now' | 'interrupted'>;
  label: string;
}

function options(question: TrustQuestion): Option[] {
  const parent = path.dirname(question.workspaceRoot);
  return [
    { choice: 'trust', label: `Trust this folder (${question.workspaceRoot})` },
    ...(parent !== question.workspaceRoot ? [{ choice: 'trust-parent' as const, label: `Trust the parent folder (${parent}) and every folder in it` }] : []),
    { choice: 'untrust', label: "Don't trust: ignore these requests (not asked again; `beans trust` changes it)" },
  ];
}

/** The prompt as plain lines (the selected option marked with ›), for the terminal and for tests. */
function trustPromptLines(question: TrustQuestion, selected: number): string[] {
  // The repository chose these keys, values and names: escaped, so they cannot drive the terminal.
  const asked = question.requests.map(
    (request) =>
      `  • ${showSettingKey(request.key)} ${showSettingValue(request.value)}  (${showSettingKey(path.relative(question.workspaceRoot, request.file))})`,
  );
  return [
    'This folder is not trusted, and its own settings ask for more than Beans allows by default:',
    ...asked,
    'A trusted folder may loosen permissions and add hooks and MCP servers that run commands. Trust it only if you trust its authors.',
    '',
    ...options(question).map((option, index) => `${index === selected ? '›' : ' '} ${index + 1}. ${option.label}`),
    '',
    '↑/↓ select · Enter confirm · Esc not now (ignored for this run)',
  ];
}

export interface TrustPromptIO {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/** Asks the question and resolves with the confirmed choice. Needs a terminal on input. */
async function askWorkspaceTrust(question: TrustQuestion, io: TrustPromptIO = { input: process.stdin, output: process.stdout }): Promise<TrustChoice> {
  const choices = options(question);
  const answer = await askSelection((selected) => trustPromptLines(question, selected), choices.length, io);
  return typeof answer === 'number' ? choices[answer].choice : answer;
}

/**
 * Draws `render(selected)` and lets the user pick one of `count` options: ↑/↓ or a digit selects,
 * Enter confirms, Esc is 'not-now', Ctrl+C 'interrupted'.
 */
function askSelection(render: (selected: number) => string[], count: number, io: TrustPromptIO): Promise<number | 'not-now' | 'interrupted'> {
  let selected = 0;
  let drawn = 0;
  const gate = new TypingGate();
  const draw = () => {
    // Cut to the terminal's width: a wrapped line would throw off the redraw's line count.
    const width = Math.max(20, (io.output.columns ?? 80) - 1);
    const note = gate.note();
    const lines = [...render(selected), ...(note ? [note] : [])].map((line) =>
      [...line].length > width ? `${[...line].slice(0, width - 1).join('')}…` : line,
    );
    // Up to the first line of the last drawing, then clear below it and draw again.
    io.output.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}\x1b[J${lines.map((line) => `${line}\n`).join('')}`);
    drawn = lines.length;
  };
  return new Promise((resolve) => {
    const decoder = new KeyDecoder();
    const wasRaw = io.input.isRaw;
    const finish = (choice: number | 'not-now' | 'interrupted') => {
      io.input.off('data', onData);
      io.input.setRawMode?.(wasRaw ?? false);
      io.input.pause();
      resolve(choice);
    };
    const onKey = (event: KeyEvent) => {
      if (event.type === 'key' && event.name === 'ctrl-c') return finish('interrupted');
      // Esc only ever declines; anything else typed before the prompt was read, or at speed, is not an answer.
      if (event.type === 'key' && event.name === 'escape') return finish('not-now');
      // A digit only selects: it is not typing, though typed ahead it selects nothing either.
      const digit = event.type === 'text' && /^\d$/.test(event.text);
      if (!gate.allows(event, digit ? { typing: false } : {})) return draw();
      if (event.type === 'text') {
        const index = Number(event.text) - 1;
        if (!event.paste && Number.isInteger(index) && index >= 0 && index < count) selected = index;
        return draw();
      }
      if (event.name === 'up') selected = (selected + count - 1) % count;
      else if (event.name === 'down' || event.name === 'tab') selected = (selected + 1) % count;
      else if (event.name === 'enter') return finish(selected);
      else if (event.name === 'escape') return finish('not-now');
      draw();
    };
    const onData = (chunk: Buffer | string) => {
      for (const event of decoder.decode(chunk.toString())) onKey(event);
    };
    io.input.setRawMode?.(true);
    io.input.setEncoding('utf8');
    io.input.on('data', onData);
    io.input.resume();
    draw();
  });
}

/**
 * Asks (when `question` is set) and records the answer in the user's trusted folders. Resolves
 * with whether the workspace is trusted now; 'interrupted' means Ctrl+C (exit 130).
 */
export async function settleWorkspaceTrust(
  question: TrustQuestion,
  io?: TrustPromptIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean | 'interrupted'> {
  const choice = await askWorkspaceTrust(question, io);
  const out = io?.output ?? process.stdout;
  if (choice === 'interrupted') return 'interrupted';
  // Core records it: trust covers the servers and hooks just listed; one added later asks before it runs.
  const trusted = await answerTrustQuestion(question, choice, env);
  out.write(trusted ? "Trusted. The folder's settings apply.\n\n" : 'Not trusted: those settings are ignored. Run `beans trust` to change this.\n\n');
  return trusted;
}

/** The question about one server or hook a trusted folder declared after it was trusted. */
function approvalPromptLines(declaration: Declaration, workspaceRoot: string, selected: number): string[] {
  const labels = ['Approve: run it now and in later runs', 'Not now: skip it this run (asked again next time)'];
  return [
    `This trusted folder declares a new ${declaration.kind} since you trusted it:`,
    `  • ${describeDeclaration(declaration, workspaceRoot)}`,
    'It runs with your permissions, outside any sandbox. Approve it only if you trust this change.',
    '',
    ...labels.map((label, index) => `${index === selected ? '›' : ' '} ${index + 1}. ${label}`),
    '',
    '↑/↓ select · Enter confirm · Esc not now',
  ];
}

/**
 * Asks about each new server and hook in turn (as Claude Code approves project MCP servers one by
 * one) and records the approved ones. 'interrupted' means Ctrl+C (exit 130).
 */
export async function settleNewDeclarations(
  question: ApprovalQuestion,
  io: TrustPromptIO = { input: process.stdin, output: process.stdout },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | 'interrupted'> {
  let approved = 0;
  for (const declaration of question.declarations) {
    const answer = await askSelection((selected) => approvalPromptLines(declaration, question.workspaceRoot, selected), 2, io);
    if (answer === 'interrupted') return 'interrupted';
    if (answer === 0) {
      await approveDeclaration(question, declaration, env);
      approved += 1;
    }
    io.output.write(answer === 0 ? 'Approved.\n\n' : 'Skipped for this run.\n\n');
  }
  return approved;
}
