import { ConfigError } from '../errors.js';

/** The sandbox cannot start here: Beans refuses to run shell commands unsandboxed instead (exit 3). */
export class SandboxUnavailableError extends ConfigError {}

/** The sandbox started but cannot fence Unix sockets, and the user did not allow running without that: each command is refused with this. */
export class SandboxRefusedError extends ConfigError {}
