import type { Builtin, CommandContext } from './command-kit.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

/** Sessions whose prompts are read for search and preview; older ones are still listed and found by their first prompt. */
const READ_PROMPTS_OF = 200;
const PREVIEW_PROMPTS = 4;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * `/resume` (and `beans -r` with no id): this workspace's other sessions, newest first, each with
 * its whole id, when it was last used and how many turns it has. Typing filters them by the words
 * of any prompt typed in them; the highlighted session's first and latest prompts show below.
 */
export async function openResumePicker({ host, session, note, runTask, openPicker }: CommandContext): Promise<void> {
  const sessions = (await host.listSessions()).filter((listing) => listing.id !== session.id);
  if (sessions.length === 0) return note('info', 'There are no other sessions in this workspace yet.');
  sessions.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  const prompts = new Map<string, string[]>();
  await Promise.all(sessions.slice(0, READ_PROMPTS_OF).map(async (listing) => prompts.set(listing.id, await host.sessionPrompts(listing.id).catch(() => []))));
  openPicker({
    title: 'Resume a session',
    selected: 0,
    action: 'resume',
    searchable: true,
    items: sessions.map((listing) => ({
      value: listing.id,
      label: listing.title ?? (listing.firstPrompt.replace(/\s+/g, ' ').trim().slice(0, 80) || '(no prompt)'),
      detail: `${listing.lastActivity.slice(0, 16).replace('T', ' ')} · ${plural(listing.prompts ?? listing.turns, 'turn')} · ${listing.id}`,
      searchText: [listing.firstPrompt, ...(prompts.get(listing.id) ?? [])].join('\n'),
    })),
    preview: (id, width) => previewRows(id, prompts.get(id), sessions.find((listing) => listing.id === id)?.model, width),
    onSelect: (id) => runTask('Loading the session', () => host.resume(id)),
  });
}

function previewRows(id: string, prompts: string[] | undefined, model: string | undefined, width: number): StyledLine[] {
  const rows: StyledLine[] = [truncateLine([span('  ─ ', S.gray), span(id, S.bold), span(model ? ` · ${model}` : '', S.dim)], width)];
  const typed = prompts ?? [];
  const shown = typed.length <= PREVIEW_PROMPTS ? typed : [typed[0]!, ...typed.slice(-(PREVIEW_PROMPTS - 1))];
  shown.forEach((prompt, index) => {
    if (typed.length > PREVIEW_PROMPTS && index === 1) rows.push([span(`    ⋯ ${typed.length - PREVIEW_PROMPTS} more`, S.dim)]);
    rows.push(truncateLine([span('    › ', S.dim), span(prompt.replace(/\s+/g, ' '))], width));
  });
  return rows;
}

export const RESUME_BUILTINS: Record<string, Builtin> = {
  rename: {
    description: 'name this session (the resume picker shows and searches the name)',
    argumentHint: '<name>',
    run(args, { host, note }) {
      const title = args.replace(/\s+/g, ' ').trim();
      if (!title) return note('info', 'Give the session a name: /rename <name>.');
      host.renameSession(title);
      note('info', `This session is now called "${title}".`);
    },
  },
  resume: {
    description: 'pick a past session to continue (type to search its prompts)',
    idleOnly: true,
    run: (_args, context) => openResumePicker(context),
  },
};
