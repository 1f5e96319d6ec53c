import { render, type Instance } from 'ink';
import { ChatApp } from './app.js';
import type { ChatController } from './controller.js';

export interface MountOptions {
  noColor: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  debug?: boolean;
}

/** Renders the chat with Ink; split from run-chat so React loads only once its mode is chosen. */
export function mountChat(controller: ChatController, options: MountOptions): Instance {
  return render(<ChatApp controller={controller} noColor={options.noColor} />, {
    stdin: options.stdin,
    stdout: options.stdout,
    stderr: options.stderr,
    exitOnCtrlC: false,
    // Stray console output from a library is printed above the live area instead of through it.
    patchConsole: !options.debug,
    debug: options.debug,
  });
}
