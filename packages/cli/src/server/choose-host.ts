import { loadBase } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import { serverHost, type SessionHost } from './session-host.js';

/** The runners' database when one is configured, else the local session server. */
export async function sessionHost(options: CliOptions): Promise<SessionHost> {
  const url = (await loadBase(options)).config.values.workflows.databaseUrl;
  if (!url) return serverHost();
  const { RunnersHost } = await import('../runner/runners-host.js');
  return new RunnersHost(url);
}
