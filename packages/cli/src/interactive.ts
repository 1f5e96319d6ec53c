import { NoModelError, gitBranch, loadConfig, resolveWorkspace, trustQuestion } from '@beans/core';
import { createCliSession } from './bootstrap.js';
import { chatAgentOf } from './chat-agent.js';
import { configFlags, type CliOptions } from './options.js';
import { drawFirstFrame, type FirstFrame } from './ui/first-frame.js';

/** `beans` / `beans chat`: the Ink UI over one session. */
export async function runInteractive(options: CliOptions, initialPrompt?: string): Promise<number> {
  const noColor = Boolean(process.env.NO_COLOR);
  // The prompt and status line first, from the settings alone: trust, plugins, the session and the
  // UI's libraries load after it (docs/contributing/startup.md).
  const frame = await firstFrame(options, noColor);
  try {
    // Core decides what to ask (docs/permissions.md, "Workspace trust"); the chat only draws it: a folder whose own
    // files ask for looser permissions, hooks or servers asks once, first; a trusted folder that
    // declares a server or hook it did not when trusted asks about each one.
    const question = await trustQuestion({ flags: configFlags(options), settingSources: options.settingSources, trusted: options.trust });
    if (question) {
      frame?.clear();
      const prompt = await import('./ui/trust-prompt.js');
      const answered = question.kind === 'folder' ? await prompt.settleWorkspaceTrust(question) : await prompt.settleNewDeclarations(question);
      if (answered === 'interrupted') return 130;
    }
  } catch (error) {
    frame?.clear();
    throw error;
  }
  const app = await createCliSession(options, 'chat').catch(async (error: unknown) => {
    frame?.clear();
    // Nothing can answer (no key, no Ollama, no local model): one keypress pulls the default model.
    if (!(error instanceof NoModelError) || !process.stdin.isTTY) throw error;
    const { offerDefaultModel } = await import('./commands/models-pull.js');
    if (!(await offerDefaultModel(error.message))) throw error;
    return createCliSession(options, 'chat');
  });
  let background: { prompt: string } | undefined;
  const host = chatAgentOf(app, { continueInBackground: (prompt) => (background = { prompt }) });
  const { runChat } = await import('./ui/run-chat.js');
  const code = await runChat(host, {
    noColor,
    openResume: options.resume === true,
    ...(frame ? { firstFrame: frame } : {}),
    ...(initialPrompt?.trim() ? { initialPrompt } : {}),
  });
  await app.end('prompt_input_exit');
  // Chat never leaves the model's background commands behind: it says so, then stops them.
  const running = app.backgroundTasks.list().filter((task) => task.state === 'running');
  if (running.length > 0)
    process.stderr.write(
      `beans: stopping ${running.length} background task${running.length === 1 ? '' : 's'}: ${running.map((task) => `${task.id} (${task.command})`).join(', ')}\n`,
    );
  await app.close();
  // `/background`: the session file is closed now, so the session server can take it over.
  if (background) {
    const { continueInBackground } = await import('./server/background.js');
    const session = { id: app.session.id, cwd: app.workspace.cwd, model: app.session.model, permissionMode: app.permissionMode, prompt: background.prompt };
    process.stdout.write(await continueInBackground(session));
  }
  return code;
}

/**
 * The first frame from the settings (theme, key bindings, permission mode, a named model) and the
 * branch; none when the settings do not load (the session reports why, as before) or `-r` opens
 * the resume picker over the chat.
 */
async function firstFrame(options: CliOptions, noColor: boolean): Promise<FirstFrame | undefined> {
  if (options.resume === true || !process.stdin.isTTY) return undefined;
  const workspace = resolveWorkspace();
  const config = await loadConfig({
    workspaceRoot: workspace.root,
    cwd: workspace.cwd,
    env: process.env,
    flags: configFlags(options),
    settingSources: options.settingSources,
    trusted: options.trust,
  }).catch(() => undefined);
  if (!config) return undefined;
  const { values } = config;
  const frame: FirstFrame | undefined = drawFirstFrame(
    process.stdout,
    process.stdin,
    {
      width: Math.max(20, process.stdout.columns || 80),
      rows: Math.max(6, process.stdout.rows || 24),
      theme: values.ui.theme ?? 'dark',
      noColor,
      mode: values.permissions.mode,
      ...(values.model ? { model: values.model } : {}),
      branch: gitBranch(workspace.root),
      vim: values.editorMode === 'vim',
    },
    () => {
      // Ctrl+C twice before the chat reads keys: exit 130, as the terminal's interrupt did before raw
      // mode, but through process.exit, whose 'exit' handlers stop what Beans started (a SessionStart
      // hook still holding the start); death by the signal would leave it running.
      frame?.clear();
      process.exit(130);
    },
  );
  return frame;
}
