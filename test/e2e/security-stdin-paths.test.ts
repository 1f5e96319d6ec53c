// Issue 53 item 3: paths Beans cannot see. `echo $HOME/secret.txt | xargs cat` ran as a read-only
// command and read outside the workspace; so did every other way a read-only program gets paths
// that are not words on the line: its input, a list file, a glob or brace that expands to a link
// leading out, a folder walk that follows links. Each such line asks (one-shot: denied), and the
// canary never reaches the model.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const CANARY = 'TOP-SECRET-CANARY-53';

type ChatBody = { messages: { role: string; content: string }[] };
type Result = { permission_denials: { tool_input: { command?: string } }[] };

function hostileRepo() {
  const repo = makeTempRepo({ 'notes.txt': 'ordinary notes\n', 'other/keep.txt': 'keep\n', 'empty/.keep': '' });
  const outside = path.dirname(repo.dir);
  writeFileSync(path.join(outside, 'secret.txt'), `${CANARY} beside the repository\n`);
  writeFileSync(path.join(repo.home, 'secret.txt'), `${CANARY} in the home folder\n`);
  mkdirSync(path.join(outside, 'vault'), { recursive: true });
  writeFileSync(path.join(outside, 'vault', 'keep.txt'), `${CANARY} in a folder outside\n`);
  // Committed links that lead out: a file and a folder.
  mkdirSync(path.join(repo.dir, 'sub'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(repo.dir, 'sub', 'pw'));
  symlinkSync(path.join(outside, 'vault'), path.join(repo.dir, 'sub', 'vault'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(repo.dir, 'link.txt'));
  // Lists of file names the repository ships.
  writeFileSync(path.join(repo.dir, 'list.txt'), `${path.join(outside, 'secret.txt')}\n`);
  writeFileSync(path.join(repo.dir, 'list0'), `notes.txt\0${path.join(outside, 'secret.txt')}\0`);
  execFileSync('git', ['add', '.'], { cwd: repo.dir });
  return { repo, outside };
}

const ATTACKS = [
  // Words from input.
  'echo $HOME/secret.txt | xargs cat',
  'echo ../secret.txt | xargs cat',
  'echo OUTSIDE/secret.txt | xargs -n1 head',
  'printf "%s\\n" ../secret.txt | xargs grep -h TOP',
  'xargs cat <<< ../secret.txt',
  'xargs cat <<EOF\n../secret.txt\nEOF',
  'xargs -a list.txt cat',
  'xargs --arg-file=list.txt cat',
  'find . -name "*.txt" | xargs cat',
  'find . -type l -print0 | xargs -0 cat',
  'git ls-files | xargs cat',
  'ls sub | xargs -I{} cat sub/{}',
  // Names from a list file.
  'wc --files0-from=list0',
  'sort --files0-from=list0',
  'du --files0-from=list0',
  'file -f list.txt',
  'file --files-from list.txt',
  // Globs and braces that expand to what the line does not say.
  'cat sub/*',
  'head sub/p*',
  'tail -n 3 sub/?w',
  'cat sub/[p]w',
  'grep -r TOP sub/*',
  'cat sub/*/keep.txt',
  'cat {..,.}/secret.txt',
  'cat {.,x}./secret.txt',
  'cat {~,x}/secret.txt',
  'cat sub/{pw,none}',
  'cat *.txt',
  // `..` after a link is resolved by the kernel from where the link leads, not by the words.
  'cat sub/vault/../secret.txt',
  'head -n 1 sub/vault/../vault/keep.txt',
  // A folder walk that follows links.
  'diff -r sub other',
  'diff -rN sub empty',
  'diff -N sub/vault empty',
  'diff sub/vault other',
];

describe('a read-only program never reads paths Beans did not see', () => {
  it('asks for every line that hands a program paths from input, a list file, a glob, a brace or a followed link', async () => {
    const { repo, outside } = hostileRepo();
    const commands = ATTACKS.map((command) => command.replaceAll('OUTSIDE', outside));
    const server = await scriptedOllama({ turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'Done.' }] });
    const run = await runBeans(['-p', 'look around', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    const results = server.requests
      .filter((request) => request.kind === 'chat')
      .flatMap((request) => (request.body as ChatBody).messages.filter((message) => message.role === 'tool').map((message) => message.content));
    const leaked = commands.filter((_, index) => results[index]?.includes(CANARY));
    expect(leaked).toEqual([]);
    expect((JSON.parse(run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.command)).toEqual(commands);
  }, 90_000);

  it('still runs what only reads inside: literal paths, globs over plain files, xargs into programs that read no file', async () => {
    const { repo } = hostileRepo();
    const commands = [
      'cat notes.txt other/keep.txt',
      'cat other/*',
      'wc -l other/*.txt',
      'ls other | xargs -n1 basename',
      'diff other/keep.txt notes.txt',
      'grep -rn keep other',
    ];
    const server = await scriptedOllama({ turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'Done.' }] });
    const run = await runBeans(['-p', 'look around', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
    });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as Result).permission_denials).toEqual([]);
  });
});
