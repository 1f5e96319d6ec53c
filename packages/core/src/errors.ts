/**
 * Typed errors carry the exit code the CLI should use and a message that tells the user what to do.
 * Exit codes follow the product contract: 1 run error, 2 usage, 3 config/auth, 4 limit, 130 interrupt.
 */
export class BeansError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UsageError extends BeansError {
  constructor(message: string) {
    super(message, 2);
  }
}

export class ConfigError extends BeansError {
  constructor(message: string) {
    super(message, 3);
  }
}

export class ProviderError extends BeansError {
  constructor(
    message: string,
    readonly kind: string,
    exitCode = 1,
  ) {
    super(message, exitCode);
  }
}

export class ToolInputError extends BeansError {
  constructor(message: string) {
    super(message, 1);
  }
}

/** The disk refused a write Beans cannot do without (the session log): full, over quota, too big. */
export class StorageError extends BeansError {
  constructor(message: string) {
    super(message, 1);
  }
}

/** The OS sandbox cannot start here: Beans refuses to run shell commands unsandboxed instead (exit 3). */
export class SandboxUnavailableError extends ConfigError {}

/** The sandbox started but cannot fence Unix sockets, and the user did not allow running without that: each command is refused with this. */
export class SandboxRefusedError extends ConfigError {}
