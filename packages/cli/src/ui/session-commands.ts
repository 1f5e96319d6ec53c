import type { Builtin } from './commands.js';
import { heading, table } from './commands.js';
import { S, span, type StyledLine } from './styled.js';

const ALL = '\u0000all';

/** Built-in commands about how this session is set up: permissions, status, settings, looks. */
export const SESSION_BUILTINS: Record<string, Builtin> = {
  permissions: {
    description: 'list the permission rules in force and forget this session\'s approvals',
    run(_args, { host, width, print, note, openPicker }) {
      const info = host.permissionRules();
      const rows = (rules: { rule: string; source: string }[], empty: string) => table(rules.map((rule) => ({ name: rule.rule, description: rule.source })), width, empty);
      const out: StyledLine[] = [
        [span('Permission mode: ', S.bold), span(host.permissionMode), span('  (Shift+Tab changes it)', S.dim)],
        heading('Allowed without asking'),
        ...rows(info.allow, '  (no allow rules: settings "permissions.allow" or --allowed-tools)'),
        heading('Denied'),
        ...rows(info.deny, '  (no deny rules: settings "permissions.deny" or --disallowed-tools)'),
        heading('Approved in this session ("always" answers)'),
        ...table(info.approved.map((rule) => ({ name: rule, description: 'this session' })), width, '  (none)'),
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
};
