import type { ChatSession, UsageTotals } from '@beans/core';
import type { ChatAgent } from '../chat-agent.js';
import { VERSION } from '../version.js';
import { contextTokens, heading, type Builtin } from './command-kit.js';
import { S, span, wrapText, type StyledLine } from './styled.js';

export interface StatusInputSource {
  host: ChatAgent;
  session: ChatSession;
  usage: UsageTotals;
  /** When this chat started (Claude Code's `cost.total_duration_ms` counts from there). */
  startedAt: number;
  branch?: string;
}

/**
 * What a status line command reads on stdin: Claude Code's fields (hook_event_name "Status",
 * session_id, transcript_path, cwd, model {id, display_name}, workspace {current_dir, project_dir},
 * version, output_style, cost {...}, context_window {...}, exceeds_200k_tokens), so scripts written
 * for Claude Code work unchanged, plus a `beans` object with what only Beans has.
 */
export function statusLineInput({ host, session, usage, startedAt, branch }: StatusInputSource): Record<string, unknown> {
  let added = 0;
  let removed = 0;
  for (const message of session.messages) {
    if (message.role === 'tool' && message.details?.kind === 'diff' && message.status === 'ok') {
      added += message.details.added;
      removed += message.details.removed;
    }
  }
  const used = contextTokens(session);
  const window = host.contextWindow();
  return {
    hook_event_name: 'Status',
    session_id: session.id,
    transcript_path: host.transcriptPath(),
    cwd: host.statusLine?.cwd ?? host.header.workspace,
    model: { id: session.model, display_name: session.model },
    workspace: { current_dir: host.statusLine?.cwd ?? host.header.workspace, project_dir: host.header.workspace },
    version: VERSION,
    output_style: { name: 'default' },
    cost: {
      total_cost_usd: usage.costKnown ? usage.costUsd : 0,
      total_duration_ms: Date.now() - startedAt,
      total_lines_added: added,
      total_lines_removed: removed,
    },
    context_window: {
      ...(window ? { context_window_size: window, used_percentage: Math.min(100, Math.round((used / window) * 100)) } : {}),
      total_input_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      total_output_tokens: usage.outputTokens,
    },
    exceeds_200k_tokens: used > 200_000,
    beans: { provider: host.header.provider, permission_mode: host.permissionMode, ...(branch ? { git_branch: branch } : {}) },
  };
}

/** `/statusline`: what the custom status line runs and how its newest run went; `/statusline refresh` runs it now. */
export const STATUSLINE_BUILTINS: Record<string, Builtin> = {
  statusline: {
    description: 'show the custom status line command (the statusLine setting) and its newest run',
    argumentHint: '[refresh]',
    run(args, { host, width, print, note, statusLine }) {
      if (!statusLine) {
        const out: StyledLine[] = [heading('Status line')];
        out.push(
          ...wrapText(
            'No statusLine command is set. Add one to ~/.config/beans-agent/settings.json (or, in a trusted workspace, .beans/settings.json), as in Claude Code:',
            width,
          ),
        );
        out.push([span('  "statusLine": { "type": "command", "command": "~/.config/beans-agent/statusline.sh" }', S.cyan)]);
        out.push(
          ...wrapText(
            'The command reads the session as JSON on stdin (session_id, model.display_name, workspace.current_dir, cost.total_cost_usd, ...) and the first line it prints is drawn above the footer.',
            width,
            S.dim,
          ),
        );
        return print(out);
      }
      if (args === 'refresh') {
        statusLine.refresh();
        return note('info', 'The status line command runs again now.');
      }
      const last = statusLine.last;
      const source = host.configEntries().find((entry) => entry.key === 'statusLine.command')?.source ?? 'settings';
      const rows: StyledLine[] = [heading('Status line'), [span('  command  ', S.dim), span(statusLine.command)], [span('  from     ', S.dim), span(source)]];
      if (!last) rows.push([span('  not run yet', S.dim)]);
      else if (last.problem) rows.push([span('  newest   ', S.dim), span(`${last.problem} (${last.ms} ms): nothing is drawn`, S.yellow)]);
      else rows.push([span('  newest   ', S.dim), span(`exit 0 in ${last.ms} ms · `, S.dim), ...(statusLine.line ?? [])]);
      print(rows);
    },
  },
};
