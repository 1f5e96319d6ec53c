import { createCliSession } from './bootstrap.js';
import { createChatHost } from './chat-host-impl.js';
import type { CliOptions } from './options.js';

/** `beans` / `beans chat`: the Ink UI over one session. */
export async function runInteractive(options: CliOptions): Promise<number> {
  const app = await createCliSession(options, 'chat');
  if (app.modelNote) process.stderr.write(`beans: ${app.modelNote}\n`);
  const host = createChatHost(app);
  const { runChat } = await import('./ui/run-chat.js');
  return runChat(host, { noColor: Boolean(process.env.NO_COLOR) });
}
