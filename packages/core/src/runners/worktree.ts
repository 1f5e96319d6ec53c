import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { SANDBOX_READ_ONLY } from '../workspace/protected-paths.js';

// Where a background session works: a clone of the submitting repository's `origin` at the
// submitted commit, on the branch `beans/<session id>`. Each runner keeps one bare mirror per origin
// (fetched before each session) and gives every session a clone of its own that borrows the mirror's
// objects (`git clone --shared`): its refs, index and files are its own, so nothing one session
// does in git reaches another's branch. After every tool call that changed something the change is
// committed, and its patch goes into the call's durable step; the branch is pushed after each turn,
// so a runner that takes the session over starts from the pushed branch and applies the patches
// recorded after it.

/** One recorded change: the commit made after a tool call, and the patch from the commit before it. */
export interface WorktreeChange {
  commit: string;
  patch: string;
}

export interface GitIdentity {
  name: string;
  email: string;
}

/**
 * Git as the runner runs it (given as environment, so a script's every git sees it): no hooks a
 * session may have written, no signing, no prompts for credentials, and none of the upkeep a commit
 * starts (auto gc and maintenance, fsync: the change is kept by its durable step and the push; they
 * took ~50 ms of every commit on a loaded machine), with the runner's identity.
 */
const GIT_CONFIG: Record<string, string> = {
  'core.hooksPath': '/dev/null',
  'commit.gpgsign': 'false',
  'gc.auto': '0',
  'maintenance.auto': 'false',
  'core.fsync': 'none',
};

function gitEnv(identity?: GitIdentity): NodeJS.ProcessEnv {
  const entries = Object.entries(GIT_CONFIG);
  return {
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(entries.length),
    ...Object.fromEntries(
      entries.flatMap(([key, value], index) => [
        [`GIT_CONFIG_KEY_${index}`, key],
        [`GIT_CONFIG_VALUE_${index}`, value],
      ]),
    ),
    ...(identity
      ? { GIT_AUTHOR_NAME: identity.name, GIT_AUTHOR_EMAIL: identity.email, GIT_COMMITTER_NAME: identity.name, GIT_COMMITTER_EMAIL: identity.email }
      : {}),
  };
}

async function git(cwd: string, args: string[], options: { input?: string; identity?: GitIdentity; reject?: boolean } = {}) {
  return execa('git', args, {
    cwd,
    input: options.input,
    reject: options.reject ?? true,
    stripFinalNewline: true,
    env: gitEnv(options.identity),
    maxBuffer: 256 * 1024 * 1024,
  });
}

/**
 * After a tool call, in one process (each git spawned from Node cost ~10 ms more on a loaded
 * machine): stage everything but the excluded paths, commit (nothing staged: no commit), and print
 * HEAD, then, when it moved from $BEFORE (a commit of ours or the model's own), the binary patch.
 */
const CAPTURE_SCRIPT = `git add -A -- . "$@" && { git commit --quiet --no-verify -m "$MESSAGE" >/dev/null 2>&1 || :; } && after=$(git rev-parse HEAD) && echo "$after" && if [ "$after" != "$BEFORE" ]; then git diff --binary --full-index "$BEFORE" "$after"; fi`;

/**
 * Empty files the sandbox left at its read-only paths (bubblewrap's mount points for paths that did
 * not exist; the runtime removes them only once no sandboxed command of the process runs, and a
 * runner's other sessions may be running one). No command can have written them, so they are not
 * the session's work.
 */
function sandboxMountPoints(dir: string): string[] {
  return SANDBOX_READ_ONLY.filter((file) => {
    const stat = statSync(path.join(dir, file), { throwIfNoEntry: false });
    return stat?.isFile() === true && stat.size === 0;
  });
}

/** One message for a git failure: its stderr's last line. */
function gitProblem(error: unknown): string {
  const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
  return stderr.split('\n').at(-1) || (error as Error).message;
}

/** The runner's work folder: mirrors under `repos/`, sessions under `sessions/<id>/work`. */
export class Worktrees {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly root: string,
    private readonly identity: GitIdentity,
  ) {}

  get sessionsDir(): string {
    return path.join(this.root, 'sessions');
  }

  /** A fresh clone for the session at its branch's pushed state, else at the submitted commit. */
  async prepare(session: { id: string; origin: string; baseCommit: string; branch: string }): Promise<Worktree> {
    const mirror = path.join(this.root, 'repos', `${createHash('sha256').update(session.origin).digest('hex').slice(0, 16)}.git`);
    await this.serially(mirror, async () => {
      try {
        if (!existsSync(mirror)) {
          mkdirSync(path.dirname(mirror), { recursive: true });
          await git(this.root, ['clone', '--mirror', '--quiet', session.origin, mirror]);
          // Sessions' clones borrow its objects: a gc here could take objects they still use.
          await git(mirror, ['config', 'gc.auto', '0']);
        } else await git(mirror, ['fetch', '--prune', '--quiet', 'origin']);
      } catch (error) {
        throw new Error(`The runner cannot fetch ${session.origin}: ${gitProblem(error)}`, { cause: error });
      }
    });
    const known = await git(mirror, ['cat-file', '-e', `${session.baseCommit}^{commit}`], { reject: false });
    if (known.exitCode !== 0) throw new Error(`${session.origin} has no commit ${session.baseCommit}: push it, then queue the session again.`);
    const pushed = await git(mirror, ['rev-parse', '--verify', '--quiet', `refs/heads/${session.branch}`], { reject: false });
    const start = pushed.exitCode === 0 ? pushed.stdout : session.baseCommit;
    const dir = path.join(this.sessionsDir, session.id, 'work');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    await git(this.root, ['clone', '--shared', '--no-checkout', '--quiet', mirror, dir]);
    await git(dir, ['remote', 'set-url', 'origin', session.origin]);
    await git(dir, ['checkout', '--quiet', '-B', session.branch, start]);
    return new Worktree(dir, session.branch, session.baseCommit, this.identity);
  }

  /** Removes a session's folder once it ended (its branch holds the work). */
  remove(id: string): void {
    rmSync(path.join(this.sessionsDir, id), { recursive: true, force: true });
  }

  /** Two sessions of one repository must not fetch into its mirror at once. */
  private serially<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(job, job);
    this.locks.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }
}

export class Worktree {
  private queue: Promise<unknown> = Promise.resolve();
  /** Commits made since the last push. */
  private unpushed = false;

  constructor(
    readonly dir: string,
    readonly branch: string,
    readonly base: string,
    private readonly identity: GitIdentity,
  ) {}

  /** HEAD as the runner last saw it (made, restored or committed), which the next change is taken from. */
  private known: string | undefined;

  /**
   * After a tool call: commits what it changed (files, or commits the model made itself) and returns
   * the commit with the patch from the last known HEAD; undefined when nothing changed. Never throws:
   * a git failure here costs the recovery of this change, not the session.
   */
  capture(what: string): Promise<WorktreeChange | undefined> {
    return this.serially(async () => {
      try {
        const before = (this.known ??= (await git(this.dir, ['rev-parse', 'HEAD'])).stdout);
        const excludes = sandboxMountPoints(this.dir).map((file) => `:(exclude)${file}`);
        const run = await execa('sh', ['-c', CAPTURE_SCRIPT, 'capture', ...excludes], {
          cwd: this.dir,
          env: { ...gitEnv(this.identity), BEFORE: before, MESSAGE: what },
          maxBuffer: 256 * 1024 * 1024,
        });
        const newline = run.stdout.indexOf('\n');
        const after = newline < 0 ? run.stdout : run.stdout.slice(0, newline);
        if (after === before) return undefined;
        this.known = after;
        this.unpushed = true;
        const patch = newline < 0 ? '' : run.stdout.slice(newline + 1);
        return { commit: after, patch: patch ? `${patch}\n` : '' };
      } catch {
        this.known = undefined;
        return undefined;
      }
    });
  }

  /** A recorded change on replay: nothing when the pushed branch already holds it, else its patch as a new commit. */
  restore(change: WorktreeChange, what: string): Promise<void> {
    return this.serially(async () => {
      const held = await git(this.dir, ['merge-base', '--is-ancestor', change.commit, 'HEAD'], { reject: false });
      if (held.exitCode === 0 || !change.patch) return;
      await git(this.dir, ['apply', '--binary', '--index', '--whitespace=nowarn'], { input: change.patch });
      await git(this.dir, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', what], { identity: this.identity });
      this.known = undefined;
      this.unpushed = true;
    });
  }

  /** Pushes the branch when something was committed since the last push; the error's message on failure. */
  push(force = false): Promise<string | undefined> {
    return this.serially(async () => {
      if (!this.unpushed && !force) return undefined;
      // Forced: the branch is this session's alone, and a takeover may have left the pushed one behind.
      const pushed = await git(this.dir, ['push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${this.branch}`], { reject: false });
      if (pushed.exitCode !== 0) return gitProblem(pushed);
      this.unpushed = false;
      return undefined;
    });
  }

  /** The change from the submitted commit: `git diff --stat`'s last line and the files. */
  summary(): Promise<{ commit: string; change: string; files: string[] }> {
    return this.serially(async () => {
      const commit = (await git(this.dir, ['rev-parse', 'HEAD'])).stdout;
      const stat = (await git(this.dir, ['diff', '--shortstat', this.base, commit])).stdout.trim();
      const names = (await git(this.dir, ['diff', '--name-only', this.base, commit])).stdout;
      return { commit, change: stat || 'no changes', files: names ? names.split('\n') : [] };
    });
  }

  /** Commits whatever is left uncommitted (the end of the session). */
  async commitAll(what: string): Promise<void> {
    await this.capture(what);
  }

  private serially<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
