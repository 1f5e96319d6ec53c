import { execFileSync } from 'node:child_process';

/**
 * Why the OS sandbox cannot run on this machine, or undefined when it can: bubblewrap, socat and
 * ripgrep on PATH, and bubblewrap able to make its namespaces (containers may forbid it).
 * Sandbox tests skip with this reason instead of failing on a machine that cannot sandbox.
 */
export const sandboxUnavailable: string | undefined = (() => {
  if (process.platform !== 'linux') return `the sandbox tests run on Linux only (this is ${process.platform})`;
  for (const tool of ['bwrap', 'socat', 'rg']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (scripts/setup.sh installs bubblewrap, socat and ripgrep with apt)`;
    }
  }
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net', '--unshare-pid', '--unshare-user', 'true'], {
      stdio: 'pipe',
    });
  } catch (error) {
    return `bubblewrap cannot create namespaces here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  }
  return undefined;
})();

if (sandboxUnavailable) process.stderr.write(`sandbox tests skipped: ${sandboxUnavailable}\n`);
