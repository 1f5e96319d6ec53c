// Reads the repository's docs as GitHub renders them (markdown-it for the syntax, github-slugger
// for the anchors of headings), for the docs tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const markdown = new MarkdownIt({ html: true });

function markdownFiles(dir: string): string[] {
  if (!existsSync(path.join(ROOT, dir))) return [];
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** Every doc of the repository (relative to it): the README, docs/, the packages' and the tests' READMEs. */
export function docFiles(): string[] {
  const packages = readdirSync(path.join(ROOT, 'packages'))
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => existsSync(path.join(ROOT, file)));
  return ['README.md', ...markdownFiles('docs'), ...packages, 'test/support/README.md'].filter((file) => existsSync(path.join(ROOT, file)));
}

/** The pages written for users: the README and docs/ without docs/contributing/. */
export function userPages(): string[] {
  return ['README.md', ...markdownFiles('docs').filter((file) => !file.startsWith(`docs${path.sep}contributing${path.sep}`))];
}

interface Link {
  href: string;
  line: number;
}

export interface ParsedDoc {
  links: Link[];
  /** Anchors a link may name: each heading's slug, and every `id`/`name` of an HTML element. */
  anchors: Set<string>;
  /** The text of every code span and code block, with its line. */
  code: { text: string; line: number }[];
  /** The text outside code, line by line (for names written without backticks). */
  prose: { text: string; line: number }[];
  /** Raw HTML but comments: a tag the page means, or text such as `cancel <id>` that GitHub would hide. */
  html: { text: string; line: number }[];
}

/** The part of markdown-it's tokens read here. */
interface Token {
  type: string;
  content: string;
  map: [number, number] | null;
  children: Token[] | null;
  attrGet(name: string): string | null;
}

const inlineText = (token: Token): string =>
  (token.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');

export function parseDoc(file: string): ParsedDoc {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const tokens = markdown.parse(text, {}) as Token[];
  const slugger = new GithubSlugger();
  const doc: ParsedDoc = { links: [], anchors: new Set(), code: [], prose: [], html: [] };
  const htmlIds = (html: string) => {
    for (const match of html.matchAll(/\b(?:id|name)="([^"]+)"/g)) doc.anchors.add(match[1]!);
  };
  const links = (html: string, line: number) => {
    for (const match of html.matchAll(/\b(?:href|src)="([^"]+)"/g)) doc.links.push({ href: match[1]!, line });
  };
  const html = (content: string, line: number) => {
    if (!content.trimStart().startsWith('<!--')) doc.html.push({ text: content.trim(), line });
  };
  tokens.forEach((token, index) => {
    const line = (token.map?.[0] ?? 0) + 1;
    if (token.type === 'heading_open') doc.anchors.add(slugger.slug(inlineText(tokens[index + 1]!)));
    if (token.type === 'html_block') {
      html(token.content, line);
      htmlIds(token.content);
      links(token.content, line);
    }
    if (token.type === 'fence' || token.type === 'code_block') doc.code.push({ text: token.content, line });
    if (token.type !== 'inline') return;
    for (const child of token.children ?? []) {
      if (child.type === 'link_open') doc.links.push({ href: child.attrGet('href') ?? '', line });
      if (child.type === 'image') doc.links.push({ href: child.attrGet('src') ?? '', line });
      if (child.type === 'html_inline') {
        html(child.content, line);
        htmlIds(child.content);
        links(child.content, line);
      }
      if (child.type === 'code_inline') doc.code.push({ text: child.content, line });
      if (child.type === 'text') doc.prose.push({ text: child.content, line });
    }
  });
  return doc;
}
