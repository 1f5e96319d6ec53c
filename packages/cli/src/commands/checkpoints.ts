import {
  CheckpointStore,
  checkpointRows,
  checkpointsDirOf,
  findUserTurn,
  rewindCode,
  UsageError,
  type CheckpointRow,
  type RewindResult,
  type SessionStore,
} from '@beans/core';
import { loadBase, sessionStore, type Base } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** The session a command is about: `-r ID` (a unique prefix), else the newest of this workspace. */
function chosenSession(store: SessionStore, options: CliOptions): string {
  if (typeof options.resume === 'string') return store.resolveId(options.resume);
  const newest = store.newest();
  if (!newest) throw new UsageError('This workspace has no sessions yet, so there are no checkpoints.');
  return newest.id;
}

function checkpointStore(base: Base, store: SessionStore, id: string): CheckpointStore | undefined {
  const settings = base.config.values.checkpoints;
  if (settings.enabled === false) return undefined;
  return new CheckpointStore({
    dir: checkpointsDirOf(store.dir, id),
    workspace: base.workspace,
    maxBytes: settings.maxBytes,
    maxFileBytes: settings.maxFileBytes,
  });
}

/** `beans checkpoints list [-r ID] [--json]`: the session's user messages and rewinds, with what changed from each. */
export async function checkpointsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const store = sessionStore(base);
  const id = chosenSession(store, options);
  const rows = await checkpointRows(checkpointStore(base, store, id), store.load(id).messages);
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ sessionId: id, checkpoints: rows.map(jsonRow) })}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write(`Session ${id} has no user messages yet.\n`);
    return 0;
  }
  process.stdout.write(`Session ${id}:\n`);
  for (const row of rows) {
    const changes = row.files.length ? `${row.files.length} file${row.files.length === 1 ? '' : 's'} +${row.insertions} -${row.deletions}` : 'no file changes';
    const mark = row.available ? '' : '  (dropped: over checkpoints.maxBytes)';
    const what = row.kind === 'rewind' ? row.text : JSON.stringify(firstLine(row.text));
    process.stdout.write(`${row.id}  ${time(row.at)}  ${changes}  ${what}${mark}\n`);
    for (const file of row.files)
      process.stdout.write(
        `    ${file.action.padEnd(6)} ${file.path}${file.insertions !== undefined ? ` +${file.insertions} -${file.deletions}` : ''}${file.restorable ? '' : ' (not restorable: over checkpoints.maxFileBytes)'}\n`,
      );
  }
  process.stdout.write('\nRewind with `beans rewind <id>` (--code or --conversation for one of them, --dry-run to see first).\n');
  return 0;
}

export interface RewindFlags {
  code?: boolean;
  conversation?: boolean;
  dryRun?: boolean;
  force?: boolean;
  json?: boolean;
}

/** `beans rewind <user-message-uuid> [-r ID] [--code|--conversation] [--dry-run] [--force] [--json]`. */
export async function rewindCommand(options: CliOptions, messageId: string, flags: RewindFlags): Promise<number> {
  const base = await loadBase(options);
  const store = sessionStore(base);
  const id = chosenSession(store, options);
  const loaded = store.load(id);
  const both = !flags.code && !flags.conversation;
  const wantsCode = flags.code || both;
  const wantsConversation = flags.conversation || both;
  const checkpoints = checkpointStore(base, store, id);
  const isRewindCheckpoint = messageId.startsWith('rewind-');
  if (isRewindCheckpoint && flags.conversation)
    throw new UsageError(`${messageId} is the state before a rewind, not a message: only the code can go back to it.`);
  let code: RewindResult | undefined;
  if (wantsCode) {
    if (!checkpoints) throw new UsageError('File checkpoints are off (checkpoints.enabled is false): rewind the conversation with --conversation.');
    code = await rewindCode(checkpoints, loaded.messages, messageId, { dryRun: flags.dryRun, force: flags.force });
  }
  let conversation: { text: string; removedMessages: number } | undefined;
  const codeRefused = code !== undefined && !code.canRewind;
  if (wantsConversation && !isRewindCheckpoint && !codeRefused) {
    const turn = findUserTurn(loaded.messages, messageId);
    conversation = { text: turn.text, removedMessages: loaded.messages.length - turn.index };
    if (!flags.dryRun) {
      // Appending needs the session's lock: a chat that has it open must rewind from inside (/rewind).
      const writer = store.open(id);
      try {
        writer.appendMeta({ kind: 'rewind', uuid: turn.uuid });
      } finally {
        writer.close();
      }
    }
  }
  if (flags.json) {
    const { targets: _unused, ...shown } = (code ?? {}) as RewindResult & { targets?: unknown };
    process.stdout.write(
      `${JSON.stringify({ sessionId: id, messageId, dryRun: flags.dryRun === true, ...(code ? { code: shown } : {}), ...(conversation ? { conversation } : {}) })}\n`,
    );
    return codeRefused ? 1 : 0;
  }
  if (code) {
    if (!code.canRewind) {
      process.stderr.write(`beans: ${code.error}\n`);
      return 1;
    }
    const verb = flags.dryRun ? 'Would change' : 'Changed';
    process.stdout.write(
      code.files.length === 0
        ? 'The code is already as it was then: nothing to change.\n'
        : `${verb} ${code.files.length} file${code.files.length === 1 ? '' : 's'} (+${code.insertions} -${code.deletions}):\n`,
    );
    for (const file of code.files) {
      const notes = [file.changedByHand ? 'changed by hand since' : '', file.restorable ? '' : 'not restorable: over checkpoints.maxFileBytes']
        .filter(Boolean)
        .join('; ');
      process.stdout.write(`    ${file.action.padEnd(7)} ${file.path} +${file.insertions} -${file.deletions}${notes ? ` (${notes})` : ''}\n`);
    }
    for (const failure of code.failed ?? []) process.stderr.write(`beans: could not restore ${failure.path}: ${failure.reason}\n`);
    if (code.undoId) process.stdout.write(`Undo this with \`beans rewind ${code.undoId}\`.\n`);
  }
  if (conversation) {
    process.stdout.write(
      `${flags.dryRun ? 'Would cut' : 'Cut'} the conversation before that message (${conversation.removedMessages} message${conversation.removedMessages === 1 ? '' : 's'}${flags.dryRun ? '' : ' gone'}); it read:\n${conversation.text}\n`,
    );
  }
  return code?.failed?.length ? 1 : 0;
}

function jsonRow(row: CheckpointRow) {
  return { ...row, timestamp: new Date(row.at).toISOString() };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function time(at: number): string {
  return new Date(at).toISOString().slice(0, 16).replace('T', ' ');
}
