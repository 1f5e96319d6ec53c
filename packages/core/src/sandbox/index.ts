export { createShellSandbox, SandboxUnavailableError, type ShellSandbox, type ShellSandboxOptions, type SandboxedCommand } from './shell-sandbox.js';
