import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, docFiles, parseDoc } from './markdown.ts';

// Issue 60: every relative link of the docs resolves, to a file of the repository and, when it names
// one, to an anchor of that file (a heading's slug, as GitHub makes it, or an HTML id).
describe('links in the docs', () => {
  const files = docFiles();

  it('the docs are found', () => {
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('docs'))).not.toEqual([]);
  });

  it('every relative link names a file that exists, and an anchor that file has', () => {
    const parsed = new Map(files.map((file) => [file, parseDoc(file)]));
    const anchorsOf = (file: string) => {
      if (!parsed.has(file)) parsed.set(file, parseDoc(file));
      return parsed.get(file)!.anchors;
    };
    const broken: string[] = [];
    for (const file of files) {
      for (const { href, line } of parsed.get(file)!.links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
        const [target, anchor] = href.split('#', 2) as [string, string | undefined];
        const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURIComponent(target))) : file;
        const where = `${file}:${line}: ${href}`;
        if (resolved.startsWith('..') || !existsSync(path.join(ROOT, resolved))) {
          broken.push(`${where} (no file ${resolved})`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (!resolved.endsWith('.md') || statSync(path.join(ROOT, resolved)).isDirectory()) {
          broken.push(`${where} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!anchorsOf(resolved).has(decodeURIComponent(anchor))) broken.push(`${where} (${resolved} has no heading or id "${anchor}")`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ is listed in its index (docs/README.md, docs/contributing/README.md)', () => {
    const unlisted: string[] = [];
    for (const index of ['docs/README.md', 'docs/contributing/README.md']) {
      const folder = path.dirname(index);
      const listed = new Set(parseDoc(index).links.map(({ href }) => path.normalize(path.join(folder, href.split('#')[0]!))));
      for (const page of files.filter((file) => path.dirname(file) === folder && file !== index)) {
        if (!listed.has(page)) unlisted.push(`${page} (not in ${index})`);
      }
    }
    expect(unlisted).toEqual([]);
  });
});
