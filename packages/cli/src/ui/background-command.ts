import type { Builtin } from './command-kit.js';

/**
 * `/background [prompt]`: the session goes on in the session server (started when none runs) and this
 * terminal is free; `beans attach` comes back to it. Idle only: a turn in flight would be cut.
 */
export const BACKGROUND_BUILTINS: Record<string, Builtin> = {
  background: {
    description: 'continue this session in the session server (beans attach comes back to it) and free the terminal',
    argumentHint: '[prompt to work on]',
    idleOnly: true,
    run(args, { host, exit, note }) {
      if (!host.continueInBackground) return note('info', 'This session already runs in the session server: leave the chat (Ctrl+D) and it goes on.');
      host.continueInBackground(args.trim());
      exit(0);
    },
  },
};
