// Plugin loading benchmark: 100 generated plugins with 500 agents, 300 skills and 200 commands.
// Prints the median of 5 runs for a cold load (a new Node process: importing @beans/core, then
// loadPlugins), a warm load (again in the same process), and listing (the `beans plugins list --json`
// object from a loaded catalog).
// and the whole `beans plugins list` command in a new process.
// Run: pnpm run build && node bench/plugins.mjs   (Node from scripts/toolchain.sh)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const CORE = pathToFileURL(path.join(ROOT, 'packages', 'core', 'dist', 'index.js')).href;
const RUNS = 5;
const PLUGINS = 100;
const AGENTS = 500;
const SKILLS = 300;
const COMMANDS = 200;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => `${value.toFixed(1)} ms`;

// Bodies of realistic length, so reading only the head of each file matters.
const body = (title) => `# ${title}\n\n${'Follow the project conventions, read before editing, and run the tests.\n'.repeat(60)}`;

function generate(root) {
  for (let p = 0; p < PLUGINS; p += 1) {
    const dir = path.join(root, `plugin-${p}`);
    mkdirSync(path.join(dir, '.claude-plugin'), { recursive: true });
    writeFileSync(
      path.join(dir, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: `plugin-${p}`, version: '1.0.0', description: `Generated plugin ${p}` }),
    );
    mkdirSync(path.join(dir, 'agents'));
    mkdirSync(path.join(dir, 'commands'));
    mkdirSync(path.join(dir, 'skills'));
  }
  for (let i = 0; i < AGENTS; i += 1) {
    const file = path.join(root, `plugin-${i % PLUGINS}`, 'agents', `agent-${i}.md`);
    // One agent in ten has the unquoted `: ` and <example> blocks that send the parser to its fallback.
    const description =
      i % 10 === 0
        ? `Use this agent when: the user asks for review ${i}.\n\n<example>\nuser: "review it"\nassistant: "I will"\n</example>`
        : `Agent number ${i} for generated work`;
    writeFileSync(file, `---\nname: agent-${i}\ndescription: ${description}\ntools: Read, Grep, Glob\nmodel: sonnet\n---\n\n${body(`Agent ${i}`)}`);
  }
  for (let i = 0; i < SKILLS; i += 1) {
    const skills = path.join(root, `plugin-${i % PLUGINS}`, 'skills');
    const text = `---\nname: skill-${i}\ndescription: Skill number ${i}\ntriggers:\n  - phrase ${i}\n---\n\n${body(`Skill ${i}`)}`;
    if (i % 2 === 0) {
      mkdirSync(path.join(skills, `skill-${i}`, 'references'), { recursive: true });
      writeFileSync(path.join(skills, `skill-${i}`, 'SKILL.md'), text);
      writeFileSync(path.join(skills, `skill-${i}`, 'references', 'notes.md'), body('Notes'));
    } else {
      writeFileSync(path.join(skills, `skill-${i}.md`), text);
    }
  }
  for (let i = 0; i < COMMANDS; i += 1) {
    const file = path.join(root, `plugin-${i % PLUGINS}`, 'commands', `command-${i}.md`);
    const head = i % 4 === 0 ? '' : `---\ndescription: Command number ${i}\nargument-hint: [file] [mode]\n---\n`;
    writeFileSync(file, `${head}Run command ${i} on $ARGUMENTS.\n\n${body(`Command ${i}`)}`);
  }
}

const listing = (catalog) =>
  JSON.stringify({
    plugins: catalog.plugins.map((plugin) => ({
      name: plugin.name,
      root: plugin.root,
      agents: plugin.agents.map(({ name, description }) => ({ name, description })),
      skills: plugin.skills.map(({ name, description }) => ({ name, description })),
      commands: plugin.commands.map(({ name, description }) => ({ name, description })),
    })),
    problems: catalog.problems,
  });

const root = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-plugins-'));
try {
  generate(root);

  // Cold: a fresh process pays for importing core (and gray-matter) and the first parse.
  const coldScript = `
    const started = performance.now();
    const { loadPlugins } = await import(${JSON.stringify(CORE)});
    const imported = performance.now();
    const catalog = await loadPlugins({ roots: [${JSON.stringify(root)}] });
    const loaded = performance.now();
    console.log(JSON.stringify({ importMs: imported - started, loadMs: loaded - imported, agents: catalog.agents().length, skills: catalog.skills().length, commands: catalog.commands().length, problems: catalog.problems.length }));`;
  const cold = [];
  for (let run = 0; run < RUNS; run += 1) {
    const startedAt = performance.now();
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', coldScript], { encoding: 'utf8' });
    cold.push({ ...JSON.parse(out), processMs: performance.now() - startedAt });
  }
  const counts = cold[0];
  if (counts.agents !== AGENTS || counts.skills !== SKILLS || counts.commands !== COMMANDS) {
    throw new Error(`expected ${AGENTS}/${SKILLS}/${COMMANDS}, loaded ${counts.agents}/${counts.skills}/${counts.commands}`);
  }

  // Warm: the same process again, modules and file system cache hot.
  const { loadPlugins } = await import(CORE);
  await loadPlugins({ roots: [root] });
  const warm = [];
  const list = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const catalog = await loadPlugins({ roots: [root] });
    const loaded = performance.now();
    bytes = listing(catalog).length;
    warm.push(loaded - started);
    list.push(performance.now() - loaded);
  }

  // Every tenth agent and three commands in four carry YAML that needs the lenient reader.
  const expectedProblems = AGENTS / 10 + (COMMANDS * 3) / 4;
  if (counts.problems !== expectedProblems) throw new Error(`expected ${expectedProblems} problems, got ${counts.problems}`);
  console.log(
    `plugins: ${PLUGINS} plugins, ${AGENTS} agents, ${SKILLS} skills, ${COMMANDS} commands (${counts.problems} files read by the lenient fallback, each reported)`,
  );
  console.log(`  cold import of @beans/core   median ${ms(median(cold.map((run) => run.importMs)))}`);
  console.log(`  cold loadPlugins             median ${ms(median(cold.map((run) => run.loadMs)))}`);
  console.log(`  cold process total           median ${ms(median(cold.map((run) => run.processMs)))}  (node start + import + load)`);
  console.log(`  warm loadPlugins             median ${ms(median(warm))}`);
  console.log(`  list (plugins list --json)   median ${ms(median(list))}  (${bytes} bytes)`);
  // The whole command a user types: `beans plugins list --plugin-dir <root>` in a fresh process,
  // with an empty HOME so only the generated plugins and the built-in ones load.
  const home = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-home-'));
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state') };
  const command = [];
  try {
    for (let run = 0; run < RUNS; run += 1) {
      const startedAt = performance.now();
      execFileSync(path.join(ROOT, 'bin', 'beans'), ['plugins', 'list', '--plugin-dir', root], {
        cwd: home,
        env,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      command.push(performance.now() - startedAt);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  console.log(`  beans plugins list (process) median ${ms(median(command))}  (${AGENTS + SKILLS + COMMANDS} plugin files; goal < 200 ms)`);
  console.log(`  (${RUNS} runs each)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
