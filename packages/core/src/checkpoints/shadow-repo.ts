import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lazily } from '../lazily.js';
import { builtin } from '../node-builtins.js';
import type { Workspace } from '../workspace/workspace.js';

// Loaded with the first git command: as static imports, child_process and util cost every start.
const execFileAsync = lazily(() => builtin('node:util').promisify(builtin('node:child_process').execFile));

/** One path a command changed, as two snapshots of the work tree tell it. */
export interface TreeChange {
  path: string;
  /** Undefined: the path did not exist (created). */
  before?: TreeEntry;
  /** Undefined: the path is gone (deleted). */
  after?: TreeEntry;
}

export interface TreeEntry {
  /** Git's mode: `100644`, `100755`, `120000` (a symlink). */
  mode: string;
  oid: string;
}

/**
 * A git repository of Beans' own beside the session, whose work tree is the workspace: `git add -A`
 * into its own index and `write-tree` take a snapshot of everything git would see (.gitignore
 * honoured, `.git` never included). It never touches the user's repository: its own git dir, index
 * and objects; the user's objects are only read (as alternates) when its index starts as a copy of
 * the user's, which makes the first snapshot cheap.
 */
export class ShadowRepo {
  readonly objectsDir: string;
  private readonly env: NodeJS.ProcessEnv;
  private ready?: Promise<void>;

  constructor(
    readonly gitDir: string,
    private readonly workspace: Pick<Workspace, 'root' | 'isGit'>,
  ) {
    this.objectsDir = path.join(gitDir, 'objects');
    // The user's GIT_* variables (a hook that runs Beans sets GIT_DIR) must not point git elsewhere.
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
    this.env = {
      ...env,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: workspace.root,
      GIT_INDEX_FILE: path.join(gitDir, 'index'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      LC_ALL: 'C',
    };
  }

  /** A tree of the whole work tree as it is now. */
  async snapshot(): Promise<string> {
    await this.init();
    await this.git(['add', '-A', '--ignore-errors', '--', '.']).catch((error: { stdout?: string }) => {
      // --ignore-errors: an unreadable file is skipped (and reported); the snapshot still stands.
      if (error.stdout === undefined) throw error;
    });
    // Objects of files over the size limit may be missing on purpose (see dropObject).
    return (await this.git(['write-tree', '--missing-ok'])).trim();
  }

  /** The paths whose content or kind differs between two snapshots. */
  async diff(from: string, to: string): Promise<TreeChange[]> {
    if (from === to) return [];
    const out = await this.git(['diff-tree', '-r', '-z', '--no-renames', from, to]);
    const fields = out.split('\0');
    const changes: TreeChange[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const [oldMode, newMode, oldOid, newOid] = fields[index].slice(1).split(' ');
      const file = fields[index + 1];
      // Nested repositories (gitlinks) are their own business.
      if (oldMode === '160000' || newMode === '160000') continue;
      changes.push({
        path: file,
        ...(oldMode !== '000000' ? { before: { mode: oldMode, oid: oldOid } } : {}),
        ...(newMode !== '000000' ? { after: { mode: newMode, oid: newOid } } : {}),
      });
    }
    return changes;
  }

  /** Sizes of objects by id (missing ones are left out). */
  async sizes(oids: string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    if (oids.length === 0) return sizes;
    await this.init();
    const out = (await this.pipe(['cat-file', '--batch-check'], oids.join('\n') + '\n')).toString('utf8');
    for (const line of out.split('\n')) {
      const [oid, type, size] = line.split(' ');
      if (type === 'blob' && oid && size) sizes.set(oid, Number(size));
    }
    return sizes;
  }

  /** Contents of blobs by id, from this repository or the user's objects it borrows (missing ones left out). */
  async readBlobs(oids: string[]): Promise<Map<string, Buffer>> {
    const blobs = new Map<string, Buffer>();
    const wanted = [...new Set(oids)];
    if (wanted.length === 0) return blobs;
    await this.init();
    const out = await this.pipe(['cat-file', '--batch'], wanted.join('\n') + '\n');
    let offset = 0;
    while (offset < out.length) {
      const end = out.indexOf(10, offset);
      if (end < 0) break;
      const [oid, type, size] = out.subarray(offset, end).toString('utf8').split(' ');
      offset = end + 1;
      if (type === 'missing' || !size) continue;
      const length = Number(size);
      if (type === 'blob') blobs.set(oid, out.subarray(offset, offset + length));
      offset += length + 1;
    }
    return blobs;
  }

  private init(): Promise<void> {
    this.ready ??= this.create();
    return this.ready;
  }

  private async create(): Promise<void> {
    if (existsSync(path.join(this.gitDir, 'HEAD'))) return;
    mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
    // No template: no sample hooks, nothing but what git needs.
    const { GIT_WORK_TREE: _tree, GIT_DIR: _dir, GIT_INDEX_FILE: _index, ...plain } = this.env;
    await execFileAsync()('git', ['init', '--bare', '--quiet', '--template=', this.gitDir], { env: plain });
    const config: [string, string][] = [
      ['core.bare', 'false'],
      ['core.autocrlf', 'false'],
      ['core.safecrlf', 'false'],
      ['core.fsmonitor', 'false'],
      ['core.symlinks', 'true'],
      ['core.filemode', 'true'],
      ['gc.auto', '0'],
      ['advice.addEmbeddedRepo', 'false'],
      ['advice.addIgnoredFile', 'false'],
    ];
    for (const [key, value] of config) await execFileAsync()('git', ['config', key, value], { env: this.env });
    mkdirSync(path.join(this.gitDir, 'info'), { recursive: true });
    // Highest precedence: no clean filter (LFS), no end-of-line conversion: blobs are the bytes on disk.
    writeFileSync(path.join(this.gitDir, 'info', 'attributes'), '* -text -filter -ident -working-tree-encoding -eol\n');
    this.seedFromUserRepository();
  }

  /**
   * Starts the index as a copy of the user's, borrowing the user's objects: files unchanged since the
   * user's last `git add` are then neither read nor copied. Only when the user's blobs are the bytes
   * on disk (no autocrlf, no filters or eol rules in attributes); otherwise the first snapshot reads
   * everything. The user's exclude file applies here too.
   */
  private seedFromUserRepository(): void {
    if (!this.workspace.isGit) return;
    const userGit = path.join(this.workspace.root, '.git');
    const userExclude = path.join(userGit, 'info', 'exclude');
    if (existsSync(userExclude)) copyFileSync(userExclude, path.join(this.gitDir, 'info', 'exclude'));
    const userIndex = path.join(userGit, 'index');
    const userObjects = path.join(userGit, 'objects');
    if (!existsSync(userIndex) || !existsSync(userObjects) || !bytesAreBlobs(this.workspace.root, userGit)) return;
    copyFileSync(userIndex, path.join(this.gitDir, 'index'));
    mkdirSync(path.join(this.objectsDir, 'info'), { recursive: true });
    writeFileSync(path.join(this.objectsDir, 'info', 'alternates'), `${userObjects}\n`);
  }

  private async git(args: string[]): Promise<string> {
    const { stdout } = await execFileAsync()('git', args, { env: this.env, cwd: this.workspace.root, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
    return stdout;
  }

  private pipe(args: string[], input: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = builtin('node:child_process').spawn('git', args, { env: this.env, cwd: this.workspace.root, stdio: ['pipe', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`git ${args.join(' ')} failed: ${stderr.trim()}`))));
      child.stdin.end(input);
    });
  }
}

const CONVERTING = /\b(filter|text|eol|crlf|working-tree-encoding|ident)\b/;

/** False when the user's git may store other bytes than the file holds (autocrlf, LFS, eol rules). */
function bytesAreBlobs(root: string, userGit: string): boolean {
  const home = process.env.HOME ?? '';
  const configs = [
    path.join(userGit, 'config'),
    path.join(home, '.gitconfig'),
    path.join(process.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'config'),
  ];
  if (configs.some((file) => /^\s*autocrlf\s*=\s*(true|input)/im.test(readOrEmpty(file)))) return false;
  for (const file of [path.join(root, '.gitattributes'), path.join(userGit, 'info', 'attributes')]) {
    if (CONVERTING.test(readOrEmpty(file))) return false;
  }
  // Nested .gitattributes are rare; a plain look at the index for their names finds them.
  const index = readOrEmpty(path.join(userGit, 'index'), 'latin1');
  return !/\/\.gitattributes\0/.test(index);
}

function readOrEmpty(file: string, encoding: BufferEncoding = 'utf8'): string {
  try {
    return readFileSync(file, encoding);
  } catch {
    return '';
  }
}
