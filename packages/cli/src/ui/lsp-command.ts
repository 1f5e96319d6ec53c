import { heading, table, type Builtin } from './command-kit.js';

/** `/lsp` lists the session's language servers with their state (none starts before a file of its language). */
export const LSP_BUILTINS: Record<string, Builtin> = {
  lsp: {
    description: 'show each language server with its state, languages and restarts',
    async run(_args, { host, width, print }) {
      const rows = host.lspServers().map((server) => ({
        name: server.name,
        description: `${server.state}${server.pid ? ` (pid ${server.pid})` : ''} · ${server.languages.join(', ')}${server.restarts ? ` · restarted ${server.restarts}x` : ''} · ${server.origin}${server.problem ? ` · ${server.problem}` : ''}`,
      }));
      return print([
        heading('Language servers'),
        ...table(rows, width, 'No language servers configured (a plugin\'s lspServers or .lsp.json, or the "lsp": {"servers"} setting).'),
      ]);
    },
  },
};
