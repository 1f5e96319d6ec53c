export {
  createShellSandbox,
  describeSandboxUnixSockets,
  sandboxReadDenials,
  type ShellSandbox,
  type ShellSandboxOptions,
  type SandboxedCommand,
} from './shell-sandbox.js';
export { SandboxRefusedError, SandboxUnavailableError } from '../errors.js';
export type { UnixSocketSettings, UnixSocketStatus } from './unix-sockets.js';
