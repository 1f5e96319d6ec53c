import path from 'node:path';
import { setTrustDecision, type TrustQuestion } from '@beans/core';
import { KeyDecoder, type KeyEvent } from './keys.js';

// The workspace-trust question, asked in the terminal before the chat mounts (no Ink: it must not
// depend on the chat being built, and it decides how the chat is built). Like the permission prompt,
// it takes no key sent before it was drawn, and an answer is a selection confirmed with Enter.

export type TrustChoice = 'trust' | 'trust-parent' | 'untrust' | 'not-now' | 'interrupted';

const GUARD_MS = 300;

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
export function trustPromptLines(question: TrustQuestion, selected: number): string[] {
  const asked = question.requests.map((request) => `  • ${request.key} ${JSON.stringify(request.value)}  (${path.relative(question.workspaceRoot, request.file)})`);
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
export function askWorkspaceTrust(question: TrustQuestion, io: TrustPromptIO = { input: process.stdin, output: process.stdout }): Promise<TrustChoice> {
  const choices = options(question);
  let selected = 0;
  let drawn = 0;
  const draw = () => {
    // Cut to the terminal's width: a wrapped line would throw off the redraw's line count.
    const width = Math.max(20, (io.output.columns ?? 80) - 1);
    const lines = trustPromptLines(question, selected).map((line) => ([...line].length > width ? `${[...line].slice(0, width - 1).join('')}…` : line));
    // Up to the first line of the last drawing, then clear below it and draw again.
    io.output.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}\x1b[J${lines.map((line) => `${line}\n`).join('')}`);
    drawn = lines.length;
  };
  return new Promise((resolve) => {
    const decoder = new KeyDecoder();
    const wasRaw = io.input.isRaw;
    const guardUntil = Date.now() + GUARD_MS;
    const finish = (choice: TrustChoice) => {
      io.input.off('data', onData);
      io.input.setRawMode?.(wasRaw ?? false);
      io.input.pause();
      resolve(choice);
    };
    const onKey = (event: KeyEvent) => {
      if (event.type === 'key' && event.name === 'ctrl-c') return finish('interrupted');
      // Typed before the prompt was visible: not an answer.
      if (Date.now() < guardUntil) return;
      if (event.type === 'text') {
        const index = Number(event.text) - 1;
        if (!event.paste && Number.isInteger(index) && index >= 0 && index < choices.length) selected = index;
        return draw();
      }
      if (event.name === 'up') selected = (selected + choices.length - 1) % choices.length;
      else if (event.name === 'down' || event.name === 'tab') selected = (selected + 1) % choices.length;
      else if (event.name === 'enter') return finish(choices[selected].choice);
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
export async function settleWorkspaceTrust(question: TrustQuestion, io?: TrustPromptIO, env: NodeJS.ProcessEnv = process.env): Promise<boolean | 'interrupted'> {
  const choice = await askWorkspaceTrust(question, io);
  const out = io?.output ?? process.stdout;
  if (choice === 'interrupted') return 'interrupted';
  if (choice === 'trust') await setTrustDecision(question.workspaceRoot, 'trusted', env);
  else if (choice === 'trust-parent') await setTrustDecision(path.dirname(question.workspaceRoot), 'trusted', env);
  else if (choice === 'untrust') await setTrustDecision(question.workspaceRoot, 'untrusted', env);
  const trusted = choice === 'trust' || choice === 'trust-parent';
  out.write(trusted ? 'Trusted. The folder\'s settings apply.\n\n' : 'Not trusted: those settings are ignored. Run `beans trust` to change this.\n\n');
  return trusted;
}
