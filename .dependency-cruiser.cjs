// The architecture check (issues 28 and 52): `pnpm exec depcruise packages --config .dependency-cruiser.cjs`,
// also run by the suite (test/architecture/dependencies.test.ts), which lists files over 400 lines as
// warnings and fails when a folder of packages/core/src has no layer below.
//
// Every folder of packages/core/src is in one layer, lowest first. A folder imports only folders of
// its own layer (peers) and of layers below it, never above; the root files (errors.ts, version.ts,
// async-fs.ts...) are below every folder and import none; config/paths.ts (where configuration
// lives, a leaf) may be imported from any layer. A few folders are held tighter than their layer.
const core = 'packages/core/src';
const LAYERS = [
  // Providers know nothing of the rest of Beans; Claude Code's tool vocabulary is a table.
  ['llm', 'claude'],
  // Where the workspace is and which paths are inside it.
  ['workspace'],
  // The tools, and what they run in (the OS sandbox) and write to (the memory file).
  ['tools', 'sandbox', 'memory'],
  // The permission policy judges calls.
  ['permissions'],
  // The loop (it takes its provider, tools and policy as parameters) and the Markdown plugins.
  ['agent', 'plugins'],
  // The features composed around the loop, and the settings' schema that names theirs.
  ['config', 'hooks', 'guardrails', 'prompt', 'session', 'subagents', 'mcp', 'lsp', 'checkpoints', 'telemetry'],
  // The session's composition root, the SDK protocol, workflows, and runners (background sessions on DBOS).
  ['runtime', 'protocol', 'workflows', 'runners'],
  // Beans as an MCP server: a front end on the runtime, loaded only by `beans mcp serve` through its own entry.
  ['mcp-server'],
];
const folders = (...names) => `^${core}/(${names.join('|')})/`;
const ANYWHERE = `^${core}/config/paths\\.ts$`;
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

const layerRules = LAYERS.slice(0, -1).map((layer, index) =>
  forbid(
    `layer-${index + 1}-${layer.join('-')}`,
    `${layer.join(', ')} sit below ${LAYERS.slice(index + 1)
      .flat()
      .join(', ')}: a lower layer never imports a higher one.`,
    { path: folders(...layer) },
    { path: folders(...LAYERS.slice(index + 1).flat()), pathNot: ANYWHERE },
  ),
);

module.exports = {
  forbidden: [
    forbid('no-circular', 'An import circle: two modules that each need the other load in an order that is luck.', {}, { circular: true }),
    forbid(
      'core-never-imports-cli',
      'packages/core has no UI and never writes to stdout: it never imports packages/cli.',
      { path: '^packages/core/' },
      { path: '^packages/cli/' },
    ),
    forbid(
      'web-stands-alone',
      "The web view is a browser bundle served as files: it imports neither core nor the CLI (it speaks the HTTP API), and they never import it (the CLI's start-up must not load it).",
      { path: '^packages/web/' },
      { path: '^packages/(core|cli)/' },
    ),
    forbid(
      'nothing-imports-the-web-view',
      'packages/web is built into files that `beans serve` reads; no module imports it.',
      { path: '^packages/(core|cli)/' },
      { path: '^packages/web/' },
    ),
    forbid(
      'root-files-are-the-floor',
      'The root files of packages/core/src (errors, version, async-fs...) import no folder; index.ts is the package face.',
      { path: `^${core}/[^/]+\\.ts$`, pathNot: `^${core}/index\\.ts$` },
      { path: `^${core}/[^/]+/` },
    ),
    ...layerRules,
    forbid(
      'llm-is-the-floor',
      'Providers know nothing of the rest of Beans, not even their peer, the Claude vocabulary.',
      { path: folders('llm') },
      { path: `^${core}/[^/]+/`, pathNot: folders('llm') },
    ),
    forbid(
      'agent-loop-is-small',
      'The loop takes its provider, tools and policy as parameters (the steering check asks a classifier the session passes in): it imports only llm, tools and workspace.',
      { path: folders('agent') },
      { path: `^${core}/[^/]+/`, pathNot: folders('agent', 'llm', 'tools', 'workspace') },
    ),
    forbid(
      'mcp-server-is-a-front-end',
      'Beans as an MCP server is a client of the runtime, reached only through @beans/core/mcp-server: nothing else in core imports it (the index neither, so no other start loads it).',
      { path: `^${core}/`, pathNot: folders('mcp-server') },
      { path: folders('mcp-server') },
    ),
    forbid(
      'plugins-are-data',
      'Plugins are data (commands, skills, agents, hooks) read by the layers above; they never import the loop.',
      { path: folders('plugins') },
      { path: folders('agent') },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Type-only imports count: a circle of types is still a circle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
  },
};

// For the suite: every folder of packages/core/src must be in one of these (dependency-cruiser reads only the keys above).
Object.defineProperty(module.exports, 'layers', { value: LAYERS, enumerable: false });
