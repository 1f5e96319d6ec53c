import { contextTokens, heading, table, type Builtin } from './command-kit.js';
import { formatTokens } from './status-line.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';
import { THEME_NAMES, isThemeName } from './theme.js';

const ALL = '\u0000all';
const READ_ONLY_RULE = 'read-only shell commands (ls, cat, grep, find, git status/log/diff, ...)';

/** Built-in commands about how this session is set up: permissions, status, settings, looks. */
export const SESSION_BUILTINS: Record<string, Builtin> = {
  permissions: {
    description: "list the permission rules in force and forget this session's approvals",
    run(_args, { host, width, print, note, openPicker }) {
      const info = host.permissionRules();
      const rows = (rules: { rule: string; source: string }[], empty: string) =>
        table(
          rules.map((rule) => ({ name: rule.rule, description: rule.source })),
          width,
          empty,
        );
      // The built-in read-only rule (issue #31) sits beside the rules the settings and flags add.
      const readOnly = info.readOnlyCommands;
      const readOnlyRow = { rule: READ_ONLY_RULE, source: `${readOnly.source}; permissions.readOnlyCommands: false turns it off` };
      const out: StyledLine[] = [
        [span('Permission mode: ', S.bold), span(host.permissionMode), span('  (Shift+Tab changes it)', S.dim)],
        heading('Allowed without asking'),
        ...(readOnly.enabled
          ? rows([readOnlyRow], '')
          : [[span(`  ${READ_ONLY_RULE}: off (permissions.readOnlyCommands: false in ${readOnly.source})`, S.dim)]]),
        ...rows(info.allow, '  (no allow rules: settings "permissions.allow" or --allowed-tools)'),
        heading('Denied'),
        ...rows(info.deny, '  (no deny rules: settings "permissions.deny" or --disallowed-tools)'),
        heading('Approved in this session ("always" answers)'),
        ...table(
          info.approved.map((rule) => ({ name: rule, description: 'this session' })),
          width,
          '  (none)',
        ),
      ];
      print(out);
      if (info.approved.length === 0) return;
      openPicker({
        title: 'Forget a session approval? (Esc keeps them all)',
        selected: 0,
        action: 'forget',
        items: [...info.approved.map((rule) => ({ label: rule, value: rule })), { label: 'all of them', value: ALL }],
        onSelect(value) {
          const removed = host.removeApprovals(value === ALL ? undefined : value);
          note('info', `Forgot ${removed} session approval${removed === 1 ? '' : 's'}: Beans asks again for ${value === ALL ? 'those calls' : value}.`);
        },
      });
    },
  },
  status: {
    description: 'provider, model, profile, permission mode, thinking, trust, MCP servers and context use',
    run(_args, { host, session, width, print }) {
      const window = host.contextWindow();
      const used = contextTokens(session);
      const servers = host.mcpServers();
      const { header } = host;
      const rows: [string, string][] = [
        ['session', session.id],
        ['workspace', header.workspace],
        ['provider', header.provider],
        ['model', session.model],
        ['profile', `${header.profile} (${header.profileSource})`],
        ['permissions', `${host.permissionMode} mode`],
        [
          'thinking',
          session.thinking === undefined
            ? "the provider's default (/thinking changes it)"
            : typeof session.thinking === 'number'
              ? `a budget of ${session.thinking} tokens`
              : session.thinking,
        ],
        [
          'trust',
          host.workspaceTrusted ? 'this workspace is trusted' : "not trusted: the repository's own settings, hooks and commands do not load (beans trust)",
        ],
        [
          'context',
          window
            ? `${formatTokens(used)} of ${formatTokens(window)} tokens (${Math.round((used / window) * 100)}%)`
            : `${formatTokens(used)} tokens (window unknown)`,
        ],
        [
          'mcp',
          servers.length
            ? servers.map((server) => `${server.name} ${server.status}${server.tools.length ? ` (${server.tools.length} tools)` : ''}`).join(', ')
            : 'no servers',
        ],
        ['settings', host.settingsFiles.length ? host.settingsFiles.join(', ') : 'no settings files (defaults)'],
      ];
      print([
        heading('Status'),
        ...table(
          rows.map(([name, description]) => ({ name, description })),
          width,
          '',
        ),
      ]);
    },
  },
  config: {
    description: 'every setting in force and where it came from',
    run(_args, { host, width, print }) {
      const entries = host.configEntries();
      const rows = entries.map((entry) =>
        truncateLine([span('  '), span(entry.key, { color: 'cyan' }), span(` ${JSON.stringify(entry.value)}`), span(`  (${entry.source})`, S.dim)], width),
      );
      print([heading('Settings'), ...rows, [span('Change one with: beans config set <key> <value> (add --scope project for this repository).', S.dim)]]);
    },
  },
  theme: {
    description: 'choose the colour theme (dark, light, high-contrast)',
    argumentHint: '[name]',
    async run(args, { host, openPicker, setTheme, note, theme }) {
      const apply = async (name: string) => {
        if (!isThemeName(name)) return note('error', `Unknown theme "${name}". Choose one of: ${THEME_NAMES.join(', ')}.`);
        setTheme(name);
        try {
          const file = await host.saveUserSetting('ui.theme', name);
          note('info', `Theme: ${name} (saved in ${file}).`);
        } catch (error) {
          note('error', `Theme: ${name} for this session; it could not be saved: ${(error as Error).message}`);
        }
      };
      if (args) return apply(args);
      openPicker({
        title: 'Colour theme',
        selected: Math.max(0, THEME_NAMES.indexOf(theme)),
        action: 'use',
        items: THEME_NAMES.map((name) => ({ label: `${name === theme ? '●' : ' '} ${name}`, value: name, detail: THEME_DETAILS[name] })),
        onSelect: apply,
      });
    },
  },
};

const THEME_DETAILS: Record<string, string> = {
  dark: 'for dark backgrounds',
  light: 'darker colours for light backgrounds',
  'high-contrast': 'bright colours, nothing dimmed',
};
