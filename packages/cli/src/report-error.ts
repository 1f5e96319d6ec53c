import { BeansError } from '@beans/core';

/** Prints an error as one or two plain sentences (a stack only with --debug); returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  if (error instanceof BeansError) {
    process.stderr.write(`beans: ${error.message}\n`);
    if (debug && error.stack) process.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`beans: unexpected error: ${message}\nRe-run with --debug for details, and please report it.\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}
