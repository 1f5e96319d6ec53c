// What reaches a terminal from the model or a repository must not drive it (issue 43 item 8): the
// chat strips escape sequences already (ui/styled.ts); the one-shot answer on a terminal and Beans'
// own messages on stderr go through here. The stripping itself is core's (terminal-text.ts), which
// also keeps the files Beans writes from model text safe to `cat` (issue 53 item 5).
import { escapeTerminalControls, stripTerminalControls } from '@beans/core/terminal-text';

export { stripTerminalControls };

/**
 * Every message Beans writes to stderr starts with `beans: `; those writes show control characters
 * escaped, whatever part of the message a repository or a model chose (a settings key, a server
 * name, an error text). Other stderr writes (a workflow's progress line) pass as they are.
 */
export function guardStderrMessages(stream: NodeJS.WriteStream = process.stderr): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = (chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('beans: ')) {
      // The message's own final newline stays a newline.
      const body = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
      chunk = escapeTerminalControls(body.replace(/\r\n/g, '\n')) + (body === chunk ? '' : '\n');
    }
    return write(chunk, ...rest);
  };
}
