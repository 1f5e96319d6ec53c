import { NoModelError, newDeclarationsQuestion, workspaceTrustQuestion } from '@beans/core';
import { createCliSession } from './bootstrap.js';
import { createChatHost } from './chat-host-impl.js';
import { configFlags, type CliOptions } from './options.js';

/** `beans` / `beans chat`: the Ink UI over one session. */
export async function runInteractive(options: CliOptions): Promise<number> {
  // A folder whose own files ask for looser permissions, hooks or MCP servers asks once, first.
  const question = await workspaceTrustQuestion({ flags: configFlags(options), settingSources: options.settingSources, trusted: options.trust });
  if (question) {
    const { settleWorkspaceTrust } = await import('./ui/trust-prompt.js');
    if ((await settleWorkspaceTrust(question)) === 'interrupted') return 130;
  }
  // A trusted folder that declares a server or hook it did not when trusted asks about each one.
  const approval = await newDeclarationsQuestion({ flags: configFlags(options), settingSources: options.settingSources, trusted: options.trust });
  if (approval) {
    const { settleNewDeclarations } = await import('./ui/trust-prompt.js');
    if ((await settleNewDeclarations(approval)) === 'interrupted') return 130;
  }
  const app = await createCliSession(options, 'chat').catch(async (error: unknown) => {
    // Nothing can answer (no key, no Ollama, no local model): one keypress pulls the default model.
    if (!(error instanceof NoModelError) || !process.stdin.isTTY) throw error;
    const { offerDefaultModel } = await import('./commands/models-pull.js');
    if (!(await offerDefaultModel(error.message))) throw error;
    return createCliSession(options, 'chat');
  });
  const host = createChatHost(app);
  const { runChat } = await import('./ui/run-chat.js');
  const code = await runChat(host, { noColor: Boolean(process.env.NO_COLOR), openResume: options.resume === true });
  await app.end('prompt_input_exit');
  // Chat never leaves the model's background commands behind: it says so, then stops them.
  const running = app.backgroundTasks.list().filter((task) => task.state === 'running');
  if (running.length > 0) process.stderr.write(`beans: stopping ${running.length} background task${running.length === 1 ? '' : 's'}: ${running.map((task) => `${task.id} (${task.command})`).join(', ')}\n`);
  await app.close();
  return code;
}
