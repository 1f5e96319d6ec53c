import { HeadTailBuffer } from './output-buffer.js';
import { PROVIDER_KEY_VARIABLES } from './tool-env.js';
import type { ToolContext, ToolResult } from './tool.js';

/** How much of a command's output the editor keeps for Beans (its end, as the person's terminal shows it). */
const OUTPUT_BYTE_LIMIT = 256 * 1024;

/**
 * A foreground command in the editor's terminal (ACP `terminal/create`): the person sees it run in
 * their editor, and the model reads what it printed, cut as a local command's output is. A terminal
 * starts from the editor's environment, not the one Beans gives commands, so every variable Beans
 * keeps from commands (the provider keys, `tools.env.strip`) is set empty there. The timeout kills
 * it through the editor; an abort (the turn cancelled) too.
 */
export async function runInEditorTerminal(command: string, timeoutMs: number, ctx: ToolContext): Promise<ToolResult> {
  ctx.signal.throwIfAborted();
  const kept = ctx.env ?? process.env;
  const blanked = new Set([...PROVIDER_KEY_VARIABLES, ...Object.keys(process.env).filter((name) => !(name in kept))]);
  const run = await ctx.editorTerminal!.run({
    command,
    cwd: ctx.workspace.root,
    env: Object.fromEntries([...blanked].map((name) => [name, ''])),
    ...(ctx.callId ? { callId: ctx.callId } : {}),
    timeoutMs,
    outputByteLimit: OUTPUT_BYTE_LIMIT,
    signal: ctx.signal,
  });
  const buffer = new HeadTailBuffer();
  buffer.write(run.output);
  const text = buffer.render();
  const body = `${run.truncated ? '[The editor kept only the end of the output.]\n' : ''}${text.trim() ? text : '(no output)'}`;
  const details = { kind: 'shell' as const, exitCode: run.timedOut ? null : run.exitCode, timedOut: run.timedOut };
  if (run.timedOut) return { content: `Timed out after ${timeoutMs / 1000}s; the editor's terminal stopped the command.\n${body}`, isError: true, details };
  if (run.exitCode === 0) return { content: body, details };
  const status = run.exitCode === null ? `Killed by ${run.exitSignal ?? 'a signal'}.` : `Exit code ${run.exitCode}.`;
  return { content: `${status}\n${body}`, isError: true, details };
}
