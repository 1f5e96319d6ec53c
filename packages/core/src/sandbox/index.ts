export {
  createShellSandbox,
  sandboxReadDenials,
  SandboxUnavailableError,
  type ShellSandbox,
  type ShellSandboxOptions,
  type SandboxedCommand,
} from './shell-sandbox.js';
