// The parts of the docs that are generated from the code, so that they cannot drift from it:
// - README.md, "slash-commands" and "keys": the chat's commands and keys, the groups /help prints
//   (helpGroups in packages/cli/src/ui/commands.ts) with no plugins loaded;
// - docs/configuration.md, "settings": every settings key (the schema's keys, setting-keys.generated.ts),
//   what it takes, its default (CONFIG_DEFAULTS), the variable that sets it (CONFIG_ENV_VARS), whether an
//   untrusted repository may set it (config/untrusted-settings.ts), and what it does (settings-docs.mjs);
// - README.md and docs/providers.md, "providers": the built-in providers (llm/providers.ts): their
//   key and endpoint variables, default models and aliases;
// - docs/tools.md, "tools": the built-in tools (tools/builtin.ts, with task, load_skill and handoff):
//   their parameters (builtin-parameters.generated.ts), kind and Claude Code's name (claude/vocabulary.ts);
// - docs/cli.md, "cli-reference": the --help of every command (the commander definitions, cli.ts).
// They are read from the build (packages/*/dist), as scripts/precompute.mjs reads it. A generated
// part sits between two marker lines in its file:
//   <!-- BEGIN GENERATED name: scripts/docs.mjs writes this part; do not edit it -->
//   <!-- END GENERATED name -->
import path from 'node:path';
import { SETTING_DOCS } from './settings-docs.mjs';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const dist = (file) => import(path.join(ROOT, file));

/** The marker lines of a generated part. */
function markers(name) {
  return {
    begin: `<!-- BEGIN GENERATED ${name}: scripts/docs.mjs writes this part; do not edit it -->`,
    end: `<!-- END GENERATED ${name} -->`,
  };
}

/** The text between a part's markers, or undefined when the file has no such part. */
export function readPart(text, name) {
  const { begin, end } = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to < from) return undefined;
  return text.slice(from + begin.length + 1, to);
}

/** The file's text with a part replaced; throws when the file lacks its markers. */
export function writePart(text, name, content) {
  const { begin, end } = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`no "${name}" markers (${begin})`);
  return `${text.slice(0, from + begin.length)}\n${content}${text.slice(to)}`;
}

/** A table cell: code spans for what is typed, pipes escaped (GFM reads \| inside code spans too). */
const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
/** Plain text from the code in a cell: a `<` that would open an HTML tag (`cancel <id>`) is escaped, or the page hides it. */
const text = (value) => cell(value).replace(/<(?=[A-Za-z/!?])/g, '\\<');
const code = (text) => {
  const fence = String(text).includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${cell(text)}${fence === '``' ? ' ' : ''}${fence}`;
};

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n') + '\n';
}

/** The chat's commands and its keys, as /help prints them. */
function helpTables(groups) {
  const group = (title) => {
    const found = groups.find((candidate) => candidate.title === title);
    if (!found) throw new Error(`/help has no "${title}" group`);
    return found.rows;
  };
  return {
    'slash-commands': table(
      ['Command', 'What it does'],
      group('Commands').map((row) => [code(row.name), text(row.description)]),
    ),
    keys: table(
      ['Key', 'What it does'],
      group('Keys').map((row) => [code(row.name), text(row.description)]),
    ),
  };
}

/** The documentation of one settings key (an exact entry, or a `section.*` one). */
export function settingDoc(key) {
  if (Object.hasOwn(SETTING_DOCS, key)) return SETTING_DOCS[key];
  const section = key.slice(0, key.lastIndexOf('.'));
  return section && Object.hasOwn(SETTING_DOCS, `${section}.*`) ? SETTING_DOCS[`${section}.*`] : undefined;
}

/** The keys the page lists: every key but the objects whose keys are listed themselves. */
export function listedSettingKeys(keys) {
  return keys.filter((key) => !keys.some((other) => other.key.startsWith(`${key.key}.`)));
}

function formatDefault(key, value) {
  if (typeof value === 'number' && /Bytes$/.test(key) && value % (1024 * 1024) === 0) return `${value / (1024 * 1024)} MiB`;
  return code(JSON.stringify(value));
}

/**
 * Every setting as a table per top-level section. `untrusted(key)` says what an untrusted
 * repository may do with it: 'any', 'limited' or undefined (nothing).
 */
function settingsTable({ keys, defaults, envVars, untrusted }) {
  const variables = new Map(Object.entries(envVars).map(([variable, key]) => [key, variable]));
  const sections = new Map();
  for (const key of listedSettingKeys(keys)) {
    const doc = settingDoc(key.key);
    if (!doc) throw new Error(`scripts/docs/settings-docs.mjs has no entry for the setting ${key.key}`);
    const section = key.key.split('.')[0];
    if (!sections.has(section)) sections.set(section, []);
    const hasDefault = Object.hasOwn(defaults, key.key);
    if (hasDefault && doc.default !== undefined) throw new Error(`${key.key}: its default is in CONFIG_DEFAULTS; drop the one in settings-docs.mjs`);
    const fallback = hasDefault ? formatDefault(key.key, defaults[key.key]) : (doc.default ?? '');
    const variable = variables.get(key.key);
    const trust = untrusted(key.key);
    sections
      .get(section)
      .push([
        code(key.key),
        text(key.expected),
        fallback,
        trust === 'any' ? 'yes' : trust === 'limited' ? 'limited' : 'no',
        cell(`${doc.meaning}${variable ? ` Environment: \`${variable}\`.` : ''}`),
      ]);
  }
  return [...sections]
    .map(([section, rows]) => `### ${section}\n\n${table(['Setting', 'Takes', 'Default', 'Untrusted repo', 'What it does'], rows)}`)
    .join('\n');
}

/**
 * The built-in providers (llm/providers.ts), and the row for the endpoints the `providers` setting
 * adds. `full`: with the endpoints and the model aliases (docs/providers.md); else the README's short form.
 */
function providersTable(providers, { full }) {
  const rows = providers.map((provider) => {
    const key = provider.apiKeyEnv?.length ? provider.apiKeyEnv.map(code).join(' or ') : 'none';
    const model = provider.defaultModel ? code(provider.defaultModel) : 'an installed model that can call tools';
    if (!full) return [code(provider.id), key, model];
    const endpoint = provider.endpoint ? [provider.endpoint.env, `${provider.id}.${provider.endpoint.name}`].filter(Boolean).map(code).join(', ') : 'none';
    const aliases = Object.entries(provider.modelAliases ?? {})
      .map(([alias, target]) => `${code(alias)} → ${code(target)}`)
      .join(', ');
    return [code(provider.id), key, endpoint, model, aliases];
  });
  if (!full) {
    rows.push(['a name of the `providers` setting', 'its `apiKeyEnv`, if any', 'its first `models` entry']);
    return table(['`--provider`', 'Key', 'Default model'], rows);
  }
  rows.push(['a name of the `providers` setting', 'its `apiKeyEnv`, if any', 'its `baseUrl`', 'its first `models` entry', '']);
  return table(['`--provider`', 'Key', 'Endpoint (variable, setting)', 'Default model', 'Aliases'], rows);
}

/** The first sentence of a tool's description (written for the model). */
function firstSentence(text) {
  const line = text.trim().split('\n')[0] ?? '';
  const stop = line.search(/\.\s/);
  return stop === -1 ? line : line.slice(0, stop + 1);
}

/** The built-in tools every session declares: name, parameters (from their JSON Schemas), kind, Claude Code's name. */
function toolsTable(tools, parameters, claudeName) {
  const rows = tools.map((tool) => {
    const schema = parameters[tool.name] ?? {};
    const required = new Set(schema.required ?? []);
    const names = Object.keys(schema.properties ?? {}).map((name) => code(required.has(name) ? name : `${name}?`));
    const claude = claudeName(tool.name);
    return [code(tool.name), names.join(', '), tool.kind, claude === tool.name ? '' : code(claude), text(firstSentence(tool.description))];
  });
  return table(['Tool', 'Parameters', 'Kind', "Claude Code's name", 'What it does'], rows);
}

/** Every command, depth first: `[path words, command]`. */
function walk(command, words = []) {
  const here = [[words, command]];
  for (const sub of command.commands) here.push(...walk(sub, [...words, sub.name()]));
  return here;
}

/** The commands of the reference, each with the words that run it and its --help (80 columns, no colour). */
function cliCommands(program) {
  return walk(program)
    .filter(([, command]) => command.name() !== 'help')
    .map(([words, command]) => {
      command.configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false });
      return { words, description: command.description(), help: command.helpInformation() };
    });
}

/** The reference: a table of the commands, then each one's --help. */
function cliReference(commands) {
  const title = (words) => ['beans', ...words].join(' ');
  const anchor = (words) => title(words).replaceAll(' ', '-');
  const rows = commands.map(({ words, description }) => [`[${code(title(words))}](#${anchor(words)})`, text(description.split('\n')[0])]);
  const sections = commands.map(({ words, help }) => `## ${title(words)}\n\n\`\`\`text\n${help.trimEnd()}\n\`\`\`\n`);
  return `${table(['Command', 'What it does'], rows)}\n${sections.join('\n')}`;
}

/** Every generated part: `{ file, name, content }`, computed from the build. */
export async function generatedParts() {
  const { helpGroups } = await dist('packages/cli/dist/ui/commands.js');
  const { buildProgram } = await dist('packages/cli/dist/cli.js');
  const { SETTING_KEYS } = await dist('packages/core/dist/config/setting-keys.generated.js');
  const { CONFIG_DEFAULTS } = await dist('packages/core/dist/config/schema.js');
  const { CONFIG_ENV_VARS } = await dist('packages/core/dist/config/load-config.js');
  const { untrustedRule } = await dist('packages/core/dist/config/untrusted-settings.js');
  const { BUILTIN_PROVIDERS } = await dist('packages/core/dist/llm/providers.js');
  const { builtinTools } = await dist('packages/core/dist/tools/builtin.js');
  const { BUILTIN_PARAMETERS } = await dist('packages/core/dist/tools/builtin-parameters.generated.js');
  const { claudeToolName } = await dist('packages/core/dist/claude/vocabulary.js');
  const { createTaskTool } = await dist('packages/core/dist/subagents/task-tool.js');
  const { createLoadSkillTool } = await dist('packages/core/dist/plugins/skills.js');
  const { createHandoffTool } = await dist('packages/core/dist/subagents/handoff.js');
  // As scripts/precompute.mjs makes them: sessions also declare task, load_skill and handoff.
  const tools = [...builtinTools(), createTaskTool({ agents: [], run: async () => ({}) }), createLoadSkillTool({}), createHandoffTool({ targets: () => [] })];
  // `model` takes any value in an untrusted repository: its rule is the one that allows anything.
  const anyValue = untrustedRule('model');
  const untrusted = (key) => {
    const rule = untrustedRule(key);
    return rule === undefined ? undefined : rule === anyValue ? 'any' : 'limited';
  };
  const help = helpTables(helpGroups([]));
  return [
    { file: 'README.md', name: 'providers', content: providersTable(BUILTIN_PROVIDERS, { full: false }) },
    { file: 'docs/providers.md', name: 'providers', content: providersTable(BUILTIN_PROVIDERS, { full: true }) },
    { file: 'README.md', name: 'slash-commands', content: help['slash-commands'] },
    { file: 'README.md', name: 'keys', content: help.keys },
    {
      file: 'docs/configuration.md',
      name: 'settings',
      content: settingsTable({ keys: SETTING_KEYS, defaults: CONFIG_DEFAULTS, envVars: CONFIG_ENV_VARS, untrusted }),
    },
    { file: 'docs/tools.md', name: 'tools', content: toolsTable(tools, BUILTIN_PARAMETERS, claudeToolName) },
    { file: 'docs/cli.md', name: 'cli-reference', content: cliReference(cliCommands(buildProgram(() => {}))) },
  ];
}
