// Runs the workspace-trust question the way the chat does before it mounts, in the current folder,
// and prints the outcome: the tmux test drives it with real keys in a real terminal.
import { newDeclarationsQuestion, workspaceTrustQuestion } from '../../packages/core/dist/index.js';
import { settleNewDeclarations, settleWorkspaceTrust } from '../../packages/cli/dist/ui/trust-prompt.js';

const question = await workspaceTrustQuestion({ trusted: process.argv.includes('--trust') });
if (!question) {
  process.stdout.write('[no trust question]\n');
} else {
  const trusted = await settleWorkspaceTrust(question);
  process.stdout.write(`[trusted: ${trusted}]\n`);
}
// Then, as the chat does, the servers and hooks a trusted folder declared after it was trusted.
const approval = await newDeclarationsQuestion({ trusted: process.argv.includes('--trust') });
if (approval) process.stdout.write(`[approved: ${await settleNewDeclarations(approval)}]\n`);
process.exit(0);
