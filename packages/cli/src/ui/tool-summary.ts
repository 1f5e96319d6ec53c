import { contentText, plural, type ToolResultMessage } from '@beans/core';

/**
 * One line with numbers for a finished tool (`read 50 lines`, `12 matches in 4 files`,
 * `exit 0 · 496 lines`), read from the result the model got. The formats are the built-in tools'
 * own; a tool we do not know gets its line count.
 */
export function resultSummary(name: string, result: ToolResultMessage): string | undefined {
  if (result.status !== 'ok' && result.status !== 'error') return undefined;
  const text = contentText(result.content);
  const details = result.details;
  if (details?.kind === 'shell') {
    if (details.timedOut) return `timed out · ${plural(shellLines(text), 'line')}`;
    const exit = details.exitCode === null ? 'killed' : `exit ${details.exitCode}`;
    return `${exit} · ${plural(shellLines(text), 'line')}`;
  }
  if (details?.kind === 'diff' || details?.kind === 'todos') return undefined;
  if (result.status === 'error') return undefined;
  switch (name) {
    case 'read_file': {
      if (/^\(.* is empty\)$/.test(text)) return 'empty file';
      const read = text.split('\n').filter((line) => /^\s*\d+\t/.test(line)).length;
      const of = /\[Lines \d+-\d+ of ([\d,]+) shown/.exec(text);
      return `read ${plural(read, 'line')}${of ? ` of ${of[1]}` : ''}`;
    }
    case 'grep': {
      if (text.startsWith('No matches')) return 'no matches';
      const footer = /\[Showing \d+ of (more than )?([\d,]+) match(?:es)? in ([\d,]+) files?\./.exec(text);
      if (footer) return `${footer[1] ? 'more than ' : ''}${footer[2]} matches in ${plural(number(footer[3]), 'file')}`;
      const rows = text.split('\n').filter((line) => /^.+?:\d+: /.test(line));
      const files = new Set(rows.map((row) => /^(.+?):\d+: /.exec(row)![1]));
      return `${plural(rows.length, 'match', 'matches')} in ${plural(files.size, 'file')}`;
    }
    case 'glob': {
      if (text.startsWith('No files match')) return 'no files';
      const footer = /\[\d+ of ([\d,]+) files? shown/.exec(text);
      if (footer) return plural(number(footer[1]), 'file');
      return plural(text.split('\n\n')[0].split('\n').filter(Boolean).length, 'file');
    }
    case 'list_directory': {
      const header = /: (\d+ folders?, \d+ files?)/.exec(text.split('\n')[0] ?? '');
      return header?.[1];
    }
    case 'task':
      return undefined; // its child's line below says turns and tool calls
    default:
      return text.trim() ? plural(text.trimEnd().split('\n').length, 'line') : 'no output';
  }
}

/** Lines the command printed: what the model saw plus what was cut from the middle. */
function shellLines(text: string): number {
  const rows = text.split('\n');
  let count = 0;
  let cut = 0;
  for (const [index, row] of rows.entries()) {
    if (index === 0 && /^(Exit code -?\d+\.|Killed by .*\.|Timed out after )/.test(row)) continue;
    if (row === '(no output)') continue;
    const marker = /^\u2026 \[([\d,]+) lines cut\] \u2026$/.exec(row);
    if (marker) {
      cut += number(marker[1]);
      continue;
    }
    if (/^\[.*\]$/.test(row)) continue;
    count++;
  }
  return count + cut;
}

/** The spill file a cut output was saved to, if any. */
export function savedOutputFile(result: ToolResultMessage | undefined): string | undefined {
  if (!result) return undefined;
  return /The whole output is saved in (.+?): read more of it/.exec(contentText(result.content))?.[1];
}

function number(text: string): number {
  return Number(text.replace(/,/g, ''));
}
