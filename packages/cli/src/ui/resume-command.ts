import path from 'node:path';
import { gitBranch } from '@beans/core';
import type { SessionListing } from '../chat-agent.js';
import type { Builtin, CommandContext } from './command-kit.js';
import type { Picker } from './picker.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

/** Sessions whose prompts are read for search and preview; older ones are still listed and found by their first prompt. */
const READ_PROMPTS_OF = 200;
const PREVIEW_PROMPTS = 4;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * `/resume` (and `beans -r` with no id): this workspace's other sessions, newest first, each with
 * its whole id, when it was last used and how many turns it has. Typing filters them by the words
 * of any prompt typed in them; the highlighted session's first and latest prompts show below.
 * Ctrl+B keeps the sessions begun on the branch checked out now; Ctrl+A lists every workspace's
 * (one from another folder is resumed there: the picker says the command).
 */
async function openResumePicker(context: CommandContext): Promise<void> {
  const { host, session, note, runTask, openPicker } = context;
  const root = host.header.workspace;
  const branch = gitBranch(root);
  const here = (await host.listSessions()).filter((listing) => listing.id !== session.id);
  if (here.length === 0) return note('info', 'There are no other sessions in this workspace yet.');
  const prompts = new Map<string, string[]>();
  await readPrompts(here);
  let everywhere: SessionListing[] | undefined;
  const filters = { branchOnly: false, everywhere: false };

  async function readPrompts(listings: SessionListing[]) {
    const unread = listings
      .filter((listing) => !prompts.has(listing.id) && (!listing.workspaceRoot || listing.workspaceRoot === root))
      .slice(0, READ_PROMPTS_OF);
    await Promise.all(unread.map(async (listing) => prompts.set(listing.id, await host.sessionPrompts(listing.id).catch(() => []))));
  }
  const shown = (): SessionListing[] =>
    (filters.everywhere ? (everywhere ?? []) : here)
      .filter((listing) => listing.id !== session.id && (!filters.branchOnly || (branch !== undefined && listing.gitBranch === branch)))
      .sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  const build = (): Picker => {
    const listings = shown();
    const scope = [filters.everywhere ? 'every workspace' : 'this workspace', filters.branchOnly ? `branch ${branch ?? '(none)'}` : '']
      .filter(Boolean)
      .join(', ');
    return {
      title: `Resume a session (${scope})`,
      selected: 0,
      action: 'resume',
      searchable: true,
      items: listings.map((listing) => {
        const elsewhere = listing.workspaceRoot && listing.workspaceRoot !== root ? path.basename(listing.workspaceRoot) : undefined;
        const title = listing.title ?? (listing.firstPrompt.replace(/\s+/g, ' ').trim().slice(0, 80) || '(no prompt)');
        return {
          value: listing.id,
          label: elsewhere ? `${elsewhere}: ${title}` : title,
          detail: `${listing.lastActivity.slice(0, 16).replace('T', ' ')} · ${plural(listing.prompts ?? listing.turns, 'turn')}${listing.gitBranch ? ` · ⎇ ${listing.gitBranch}` : ''} · ${listing.id}`,
          searchText: [listing.firstPrompt, listing.workspaceRoot ?? '', ...(prompts.get(listing.id) ?? [])].join('\n'),
        };
      }),
      preview: (id, width) => {
        const listing = listings.find((candidate) => candidate.id === id);
        return previewRows(id, prompts.get(id) ?? (listing?.firstPrompt ? [listing.firstPrompt] : []), listing, root, width);
      },
      keys: [
        {
          name: 'ctrl-b',
          hint: filters.branchOnly ? 'ctrl+b every branch' : 'ctrl+b this branch',
          press: () => ((filters.branchOnly = !filters.branchOnly), build()),
        },
        {
          name: 'ctrl-a',
          hint: filters.everywhere ? 'ctrl+a this workspace' : 'ctrl+a every workspace',
          press: async () => {
            filters.everywhere = !filters.everywhere;
            if (filters.everywhere && !everywhere) {
              everywhere = await host.listSessions('everywhere');
              await readPrompts(everywhere);
            }
            return build();
          },
        },
      ],
      onSelect: (id) => {
        const listing = listings.find((candidate) => candidate.id === id);
        if (listing?.workspaceRoot && listing.workspaceRoot !== root)
          return note('info', `That session is from ${listing.workspaceRoot}. Resume it there: cd ${shellQuote(listing.workspaceRoot)} && beans -r ${id}`);
        return runTask('Loading the session', () => host.resumeSession(id));
      },
    };
  };
  openPicker(build());
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function previewRows(id: string, prompts: string[] | undefined, listing: SessionListing | undefined, root: string, width: number): StyledLine[] {
  const model = listing?.model;
  const where = listing?.workspaceRoot && listing.workspaceRoot !== root ? ` · ${listing.workspaceRoot}` : '';
  const rows: StyledLine[] = [truncateLine([span('  ─ ', S.gray), span(id, S.bold), span(model ? ` · ${model}` : '', S.dim), span(where, S.dim)], width)];
  const typed = prompts ?? [];
  const shown = typed.length <= PREVIEW_PROMPTS ? typed : [typed[0], ...typed.slice(-(PREVIEW_PROMPTS - 1))];
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
