import { sdkWarningsOnce } from '@beans/core';
import { render, type Instance } from 'ink';
import { ChatApp } from './app.js';
import type { ChatController } from './controller.js';

export interface MountOptions {
  noColor: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  debug?: boolean;
  /** Print stray console output above the live area; off for a view drawn beside others in a server (which also changes how <Static> is used). */
  patchConsole?: boolean;
}

/** Renders the chat with Ink; split from run-chat so React loads only once its mode is chosen. */
export function mountChat(controller: ChatController, options: MountOptions): Instance {
  const instance = render(<ChatApp controller={controller} noColor={options.noColor} sharedProcess={options.patchConsole === false} />, {
    stdin: options.stdin,
    stdout: options.stdout,
    stderr: options.stderr,
    exitOnCtrlC: false,
    // Stray console output from a library is printed above the live area instead of through it.
    patchConsole: (options.patchConsole ?? true) && !options.debug,
    debug: options.debug,
  });
  // Ink's console.warn now prints above the live area; an SDK's warning repeated each request shows once.
  sdkWarningsOnce();
  return instance;
}
