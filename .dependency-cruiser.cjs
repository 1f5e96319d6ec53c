// The architecture check (issue 28): `pnpm exec depcruise packages --config .dependency-cruiser.cjs`,
// also run by the suite (test/architecture/dependencies.test.ts), which lists files over 400 lines
// as warnings. Layers of packages/core/src, lowest first: llm (and the root files: errors, version);
// workspace; tools (with sandbox and memory); permissions, plugins and agent; the features that
// compose them (hooks, guardrails, prompt, session, subagents, mcp, config's schema); runtime,
// protocol, workflows and runners (background sessions on DBOS) on top, and mcp-server (Beans as an MCP server) above them all, loaded only
// by `beans mcp serve` through its own entry. A rule names what a folder may NOT import; peers may
// import peers.
const core = 'packages/core/src';
const folders = (...names) => `^${core}/(${names.join('|')})/`;
const TOP = ['runtime', 'protocol', 'workflows', 'runners', 'mcp-server'];
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

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
      'llm-is-the-floor',
      'Providers know nothing of the rest of Beans (errors.ts aside).',
      { path: folders('llm') },
      { path: `^${core}/[^/]+/`, pathNot: folders('llm') },
    ),
    forbid(
      'workspace-sits-low',
      'The workspace knows only where configuration lives (config/paths.ts).',
      { path: folders('workspace') },
      { path: `^${core}/[^/]+/`, pathNot: `${folders('workspace')}|^${core}/config/paths\\.ts$` },
    ),
    forbid(
      'tools-below-agent',
      'Tools never import the agent, the policy, plugins or the runtime: what a tool needs from the session comes through its context.',
      { path: folders('tools') },
      { path: folders('agent', 'plugins', 'permissions', 'subagents', 'hooks', 'guardrails', 'session', 'mcp', 'prompt', 'config', ...TOP) },
    ),
    forbid(
      'permissions-below-agent',
      'The permission policy judges calls; it never reaches into the loop, plugins or features above it.',
      { path: folders('permissions') },
      { path: folders('agent', 'plugins', 'subagents', 'hooks', 'guardrails', 'session', 'mcp', 'prompt', 'memory', ...TOP) },
    ),
    forbid(
      'plugins-below-agent',
      'Plugins are data (commands, skills, agents, hooks) read by the layers above.',
      { path: folders('plugins') },
      { path: folders('agent', 'subagents', 'hooks', 'guardrails', 'session', 'mcp', 'prompt', ...TOP) },
    ),
    forbid(
      'agent-loop-is-small',
      'The loop takes its provider, tools and policy as parameters: it never imports the features composed around it.',
      { path: folders('agent') },
      { path: folders('plugins', 'subagents', 'hooks', 'guardrails', 'session', 'mcp', 'prompt', 'memory', 'config', 'sandbox', ...TOP) },
    ),
    forbid(
      'runtime-and-protocol-on-top',
      'Only the top layer (runtime, protocol, workflows, runners, mcp-server, the package index) imports the top layer.',
      { path: `^${core}/`, pathNot: `^${core}/(${TOP.join('|')})/|^${core}/index\\.ts$` },
      { path: folders(...TOP) },
    ),
    forbid(
      'mcp-server-is-a-front-end',
      'Beans as an MCP server is a client of the runtime, reached only through @beans/core/mcp-server: nothing else in core imports it (the index neither, so no other start loads it).',
      { path: `^${core}/`, pathNot: folders('mcp-server') },
      { path: folders('mcp-server') },
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
