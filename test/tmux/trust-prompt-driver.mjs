// Runs the workspace-trust question the way the chat does before it mounts, in the current folder,
// and prints the outcome: the tmux test drives it with real keys in a real terminal.
import { workspaceTrustQuestion } from '../../packages/core/dist/index.js';
import { settleWorkspaceTrust } from '../../packages/cli/dist/ui/trust-prompt.js';

const question = await workspaceTrustQuestion({ trusted: process.argv.includes('--trust') });
if (!question) {
  process.stdout.write('[no trust question]\n');
} else {
  const trusted = await settleWorkspaceTrust(question);
  process.stdout.write(`[trusted: ${trusted}]\n`);
}
process.exit(0);
