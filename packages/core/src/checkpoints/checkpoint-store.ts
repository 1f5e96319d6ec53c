import { rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { Workspace } from '../workspace/workspace.js';
import { workspaceTempDir } from '../tools/file-io.js';
import { CheckpointLog, type Checkpoint } from './checkpoint-log.js';
import { hasLooseObject, readFileState, sameState, storedBytes, writeLooseBlob, type FileState } from './file-state.js';
import { lineCounts } from './line-counts.js';
import { restoreFile, workspaceFile } from './restore-file.js';
import { ShadowRepo, type TreeEntry } from './shadow-repo.js';
import type { CheckpointSummary, RewindFile, RewindOptions, RewindPlan, RewindResult, RewindTarget, TurnInfo } from './types.js';
import { builtin } from '../node-builtins.js';

export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface CheckpointStoreOptions {
  /** The session's checkpoint folder: `<session>.checkpoints` beside the session file. */
  dir: string;
  workspace: Pick<Workspace, 'root' | 'isGit'>;
  /** Bytes of kept content before the oldest checkpoints are dropped (`checkpoints.maxBytes`). */
  maxBytes?: number;
  /** A file larger than this is noted as not restorable instead of kept (`checkpoints.maxFileBytes`). */
  maxFileBytes?: number;
}

/**
 * The file checkpoints of one session. The tool seam tells it about each user turn and each change
 * before and after it happens; it keeps the content each changed path had before the turn's first
 * change, lists what each turn changed, and rewinds the workspace to the state at a user message.
 */
export class CheckpointStore {
  readonly dir: string;
  private readonly root: string;
  private readonly maxBytes: number;
  private readonly maxFileBytes: number;
  private readonly log: CheckpointLog;
  private readonly shadow: ShadowRepo;
  private turn?: TurnInfo;
  /** The work tree as the last command left it (this turn only): the next command's "before". */
  private baseline?: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: CheckpointStoreOptions) {
    this.dir = options.dir;
    this.root = options.workspace.root;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.log = new CheckpointLog(path.join(options.dir, 'checkpoints.jsonl'));
    this.shadow = new ShadowRepo(path.join(options.dir, 'git'), options.workspace);
    this.tempDir = workspaceTempDir(options.workspace);
  }

  private readonly tempDir: string | undefined;

  /** A user message starts a turn; its checkpoint is made at the turn's first change, if any. */
  startTurn(turn: TurnInfo): void {
    if (this.turn?.id === turn.id) return;
    this.turn = turn;
    this.baseline = undefined;
  }

  /** Before a file tool writes: keeps what each path holds now, unless this turn already did. Paths are absolute, inside the workspace. */
  beforeFiles(paths: string[]): Promise<void> {
    return this.serial(async () => {
      const checkpoint = this.current();
      if (!checkpoint) return;
      for (const absolute of paths) {
        const relative = this.relative(absolute);
        if (!relative || checkpoint.files.has(relative)) continue;
        const state = await readFileState(this.root, absolute, this.maxFileBytes, this.shadow.objectsDir);
        this.log.append({ type: 'before', checkpoint: checkpoint.id, path: relative, state });
      }
      this.enforceLimit();
    });
  }

  /** After a file tool ran: what each path holds now (for listing and for finding changes made by hand later). */
  afterFiles(paths: string[]): Promise<void> {
    return this.serial(async () => {
      const checkpoint = this.turn && this.log.get(this.turn.id);
      if (!checkpoint) return;
      for (const absolute of paths) {
        const relative = this.relative(absolute);
        const change = relative ? checkpoint.files.get(relative) : undefined;
        if (!relative || !change) continue;
        const state = await readFileState(this.root, absolute, this.maxFileBytes, this.shadow.objectsDir);
        this.log.append({ type: 'after', checkpoint: checkpoint.id, path: relative, state });
      }
      this.enforceLimit();
    });
  }

  /** Before a command (shell, an MCP tool): a snapshot of the work tree, unless this turn's last command left one. */
  beforeCommand(): Promise<void> {
    return this.serial(async () => {
      if (!this.turn || this.baseline) return;
      this.baseline = await this.shadow.snapshot();
    });
  }

  /** After a command: every path it changed is recorded with the content the snapshot before it held. */
  afterCommand(): Promise<void> {
    return this.serial(async () => {
      if (!this.turn || !this.baseline) return;
      const after = await this.shadow.snapshot();
      const changes = await this.shadow.diff(this.baseline, after);
      this.baseline = after;
      if (changes.length === 0) return;
      const checkpoint = this.current()!;
      const entries = changes.flatMap((change) => [change.before, change.after]).filter((entry): entry is TreeEntry => entry !== undefined);
      const sizes = await this.shadow.sizes(entries.map((entry) => entry.oid));
      const links = await this.shadow.readBlobs(entries.filter((entry) => entry.mode === '120000').map((entry) => entry.oid));
      for (const change of changes) {
        const absolute = path.join(this.root, change.path);
        const afterState = await this.entryState(change.after, sizes, links, absolute);
        if (!checkpoint.files.has(change.path)) {
          const before = await this.entryState(change.before, sizes, links);
          await this.keepLocally(before);
          this.log.append({ type: 'before', checkpoint: checkpoint.id, path: change.path, state: before });
        }
        this.log.append({ type: 'after', checkpoint: checkpoint.id, path: change.path, state: afterState });
        if (afterState.kind === 'too-large' && change.after) this.dropObject(change.after.oid);
      }
      this.enforceLimit();
    });
  }

  /** Every checkpoint, oldest first, with the files each changed and (with `lines`) the lines added and removed. */
  async list(options: { lines?: boolean } = {}): Promise<CheckpointSummary[]> {
    const summaries: CheckpointSummary[] = [];
    for (const checkpoint of this.log.checkpoints) {
      const files: CheckpointSummary['files'] = [];
      for (const [file, change] of checkpoint.files) {
        if (change.after && sameState(change.before, change.after)) continue;
        const counts = options.lines && !checkpoint.dropped ? await this.countLines(change.before, change.after) : undefined;
        files.push({ path: file, action: actionOf(change.before, change.after), ...(counts ?? {}), restorable: change.before.kind !== 'too-large' });
      }
      const insertions = files.reduce((sum, file) => sum + (file.insertions ?? 0), 0);
      const deletions = files.reduce((sum, file) => sum + (file.deletions ?? 0), 0);
      summaries.push({
        id: checkpoint.id,
        kind: checkpoint.kind,
        at: checkpoint.at,
        label: checkpoint.label,
        available: !checkpoint.dropped,
        files,
        ...(options.lines ? { insertions, deletions } : {}),
      });
    }
    return summaries;
  }

  /** Whether a checkpoint (a user message's, or a rewind's) exists. */
  has(id: string): boolean {
    return this.log.get(id) !== undefined;
  }

  /** What rewinding to `target` would do, without doing it. */
  preview(target: RewindTarget): Promise<RewindPlan> {
    return this.serial(() => this.plan(target));
  }

  /**
   * Puts every file changed at or after the target message back as it was then: restores changed and
   * deleted files, deletes created ones. Refuses when a file changed by hand since Beans last wrote
   * it, unless `force`. The state it overwrites becomes a checkpoint of its own (`undoId`).
   */
  rewind(target: RewindTarget, options: RewindOptions = {}): Promise<RewindResult> {
    return this.serial(async () => {
      const plan = await this.plan(target);
      if (!plan.canRewind || options.dryRun) return plan;
      if (plan.changedByHand.length > 0 && !options.force) {
        return {
          ...plan,
          canRewind: false,
          error: `${plan.changedByHand.length} file(s) changed since Beans last wrote them: ${plan.changedByHand.join(', ')}. Rewinding would overwrite those changes; rewind with --force to do it anyway.`,
        };
      }
      const files = plan.files.filter((file) => file.restorable);
      if (files.length === 0) return plan;
      // The state being replaced is a checkpoint first, so the rewind can be undone even after a crash.
      const undoId = `rewind-${builtin('node:crypto').randomUUID()}`;
      this.log.append({ type: 'checkpoint', id: undoId, kind: 'rewind', at: Date.now(), label: `Before rewinding to: ${plan.label}` });
      const targets = new Map<string, FileState>();
      for (const file of files) {
        const absolute = workspaceFile(this.root, file.path);
        const before = await readFileState(this.root, absolute, this.maxFileBytes, this.shadow.objectsDir);
        this.log.append({ type: 'before', checkpoint: undoId, path: file.path, state: before });
        targets.set(file.path, plan.targets.get(file.path)!);
      }
      const contents = await this.shadow.readBlobs([...targets.values()].flatMap((state) => (state.kind === 'file' ? [state.oid] : [])));
      const failed: { path: string; reason: string }[] = [];
      for (const [file, state] of targets) {
        try {
          await restoreFile(this.root, workspaceFile(this.root, file), state, state.kind === 'file' ? contents.get(state.oid) : undefined, this.tempDir);
          this.log.append({ type: 'after', checkpoint: undoId, path: file, state });
        } catch (error) {
          failed.push({ path: file, reason: (error as Error).message });
        }
      }
      this.baseline = undefined;
      const { targets: _targets, ...shown } = plan;
      return { ...shown, undoId, failed };
    });
  }

  /** Removes the store (the session was deleted). */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async plan(target: RewindTarget): Promise<RewindPlan & { targets: Map<string, FileState> }> {
    const wanted = typeof target === 'string' ? { id: target, at: this.log.get(target)?.at } : target;
    const none = (error: string) => ({
      canRewind: false,
      error,
      label: '',
      files: [],
      filesChanged: [],
      insertions: 0,
      deletions: 0,
      changedByHand: [],
      notRestorable: [],
      targets: new Map<string, FileState>(),
    });
    const own = this.log.get(wanted.id);
    const at = own?.at ?? wanted.at;
    if (at === undefined) return none(`No checkpoint for message ${wanted.id}: it is not a user message of this session, or nothing was changed from it on.`);
    const included = this.log.checkpoints.filter((checkpoint) => checkpoint === own || checkpoint.at >= at);
    if (included.some((checkpoint) => checkpoint.dropped))
      return none(`The checkpoint for message ${wanted.id} was dropped to stay under checkpoints.maxBytes; it can no longer be restored.`);
    // Each path goes back to what it held before the first change at or after the message.
    const targets = new Map<string, FileState>();
    for (const checkpoint of included) for (const [file, change] of checkpoint.files) if (!targets.has(file)) targets.set(file, change.before);
    // What Beans last wrote to each path, to tell changes made by hand since.
    const lastWritten = new Map<string, FileState>();
    for (const checkpoint of this.log.checkpoints) for (const [file, change] of checkpoint.files) if (change.after) lastWritten.set(file, change.after);
    const files: RewindFile[] = [];
    const contents = await this.shadow.readBlobs([...targets.values()].flatMap((state) => (state.kind === 'file' ? [state.oid] : [])));
    for (const [file, state] of targets) {
      const absolute = workspaceFile(this.root, file);
      const now = await readFileState(this.root, absolute, this.maxFileBytes);
      if (sameState(now, state)) continue;
      const written = lastWritten.get(file);
      const counts = lineCounts(now.kind === 'file' ? await readQuietly(absolute) : undefined, state.kind === 'file' ? contents.get(state.oid) : undefined);
      files.push({
        path: file,
        action: state.kind === 'absent' ? 'delete' : now.kind === 'absent' ? 'create' : 'restore',
        ...counts,
        changedByHand: written !== undefined && !sameState(now, written),
        restorable: state.kind !== 'too-large' && (state.kind !== 'file' || contents.has(state.oid)),
      });
    }
    files.sort((a, b) => a.path.localeCompare(b.path));
    return {
      canRewind: true,
      label: own?.label ?? included[0]?.label ?? '',
      files,
      filesChanged: files.map((file) => file.path),
      insertions: files.reduce((sum, file) => sum + file.insertions, 0),
      deletions: files.reduce((sum, file) => sum + file.deletions, 0),
      changedByHand: files.filter((file) => file.changedByHand).map((file) => file.path),
      notRestorable: files.filter((file) => !file.restorable).map((file) => file.path),
      targets,
    };
  }

  /** This turn's checkpoint, made now if this is its first change. */
  private current(): Checkpoint | undefined {
    if (!this.turn) return undefined;
    const existing = this.log.get(this.turn.id);
    if (existing) return existing;
    this.log.append({ type: 'checkpoint', id: this.turn.id, kind: 'turn', at: this.turn.at, label: this.turn.label });
    return this.log.get(this.turn.id);
  }

  private relative(absolute: string): string | undefined {
    const relative = path.relative(this.root, absolute);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative) || relative.split(path.sep).includes('.git')) return undefined;
    return relative.split(path.sep).join('/');
  }

  private async entryState(entry: TreeEntry | undefined, sizes: Map<string, number>, links: Map<string, Buffer>, absolute?: string): Promise<FileState> {
    if (!entry) return { kind: 'absent' };
    if (entry.mode === '120000') return { kind: 'link', oid: entry.oid, target: links.get(entry.oid)?.toString('utf8') ?? '' };
    const size = sizes.get(entry.oid);
    if (size === undefined || size > this.maxFileBytes) {
      const now = absolute ? await readFileState(this.root, absolute, this.maxFileBytes) : undefined;
      return { kind: 'too-large', size: size ?? -1, mtimeMs: now?.kind === 'too-large' ? now.mtimeMs : 0 };
    }
    return { kind: 'file', oid: entry.oid, size, executable: entry.mode === '100755' };
  }

  /** Content borrowed from the user's objects is copied into the store, which the user's `git gc` cannot prune. */
  private async keepLocally(state: FileState): Promise<void> {
    if (state.kind !== 'file' || hasLooseObject(this.shadow.objectsDir, state.oid)) return;
    const blob = (await this.shadow.readBlobs([state.oid])).get(state.oid);
    if (blob) writeLooseBlob(this.shadow.objectsDir, blob);
  }

  private dropObject(oid: string): void {
    try {
      unlinkSync(path.join(this.shadow.objectsDir, oid.slice(0, 2), oid.slice(2)));
    } catch {
      // Not stored here (borrowed from the user's objects) or already gone.
    }
  }

  /** Drops the oldest checkpoints (never the current one) while kept content is over maxBytes, and deletes their content. */
  private enforceLimit(): void {
    const live = this.log.checkpoints.filter((checkpoint) => !checkpoint.dropped);
    let total = live.reduce((sum, checkpoint) => sum + bytesOf(checkpoint), 0);
    const dropped: Checkpoint[] = [];
    while (total > this.maxBytes && live.length > 1 && live[0].id !== this.turn?.id) {
      const oldest = live.shift()!;
      total -= bytesOf(oldest);
      this.log.append({ type: 'dropped', checkpoint: oldest.id });
      dropped.push(oldest);
    }
    if (dropped.length === 0) return;
    const kept = new Set<string>();
    for (const checkpoint of live)
      for (const change of checkpoint.files.values()) for (const state of [change.before, change.after]) if (state && 'oid' in state) kept.add(state.oid);
    for (const checkpoint of dropped)
      for (const change of checkpoint.files.values()) if ('oid' in change.before && !kept.has(change.before.oid)) this.dropObject(change.before.oid);
  }

  private async countLines(before: FileState, after: FileState | undefined): Promise<{ insertions: number; deletions: number }> {
    const oids = [before, after].flatMap((state) => (state?.kind === 'file' ? [state.oid] : []));
    const blobs = await this.shadow.readBlobs(oids);
    return lineCounts(before.kind === 'file' ? blobs.get(before.oid) : undefined, after?.kind === 'file' ? blobs.get(after.oid) : undefined);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function bytesOf(checkpoint: Checkpoint): number {
  let bytes = 0;
  for (const change of checkpoint.files.values()) bytes += storedBytes(change.before) + storedBytes(change.after);
  return bytes;
}

function actionOf(before: FileState, after: FileState | undefined): 'create' | 'delete' | 'modify' {
  if (before.kind === 'absent') return 'create';
  if (after?.kind === 'absent') return 'delete';
  return 'modify';
}

async function readQuietly(absolute: string): Promise<Buffer | undefined> {
  const fs = await import('node:fs/promises');
  return fs.readFile(absolute).catch(() => undefined);
}
