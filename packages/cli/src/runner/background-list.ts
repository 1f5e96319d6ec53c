import type { BackgroundSession } from '@beans/core/runners';
import { stripTerminalControls } from '../output/terminal-safe.js';

/** `beans sessions list` with a database: the background sessions first, with state, runner and branch. */
export function describeBackground(sessions: readonly BackgroundSession[]): string {
  if (sessions.length === 0) return 'No background sessions in the database yet.\n\n';
  const rows = sessions.map(
    (session) =>
      `${session.id}  ${session.updatedAt.slice(0, 16).replace('T', ' ')}  ${session.state.padEnd(7)}  ${(session.runner ?? '-').padEnd(12)}  ${session.branch}  ${stripTerminalControls(session.title)}`,
  );
  return `Background sessions (\`beans sessions show ID\`, \`beans attach ID\`):\n${rows.join('\n')}\n\n`;
}
