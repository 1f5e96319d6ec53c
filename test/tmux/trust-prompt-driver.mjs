// Runs the workspace-trust question the way the chat does before it mounts, in the current folder,
// and prints the outcome: the tmux test drives it with real keys in a real terminal. Core decides
// what to ask (trustQuestion); the chat's prompt only draws it and hands the answer back.
import { trustQuestion } from '../../packages/core/dist/index.js';
import { settleNewDeclarations, settleWorkspaceTrust } from '../../packages/cli/dist/ui/trust-prompt.js';

const question = await trustQuestion({ trusted: process.argv.includes('--trust') });
if (!question) process.stdout.write('[no trust question]\n');
// The folder question; or, for a trusted folder, the servers and hooks it declared after it was trusted.
else if (question.kind === 'folder') process.stdout.write(`[trusted: ${await settleWorkspaceTrust(question)}]\n`);
else process.stdout.write(`[approved: ${await settleNewDeclarations(question)}]\n`);
process.exit(0);
