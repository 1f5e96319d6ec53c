import { commonJsExports } from '../common-js.js';

/** A page's readable text: its title (when it has one) and the main content as Markdown. */
export interface PageText {
  title?: string;
  markdown: string;
}

/** What this reads of linkedom's document: its own typings declare `parseHTML` as returning `any`. */
interface ParsedDocument {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null; setAttribute(name: string, value: string): void }>;
  body: { innerHTML: string } | null;
}

/**
 * HTML to Markdown: linkedom parses (lighter and faster to load than jsdom), Readability keeps the
 * article and drops menus, footers and scripts, turndown writes Markdown (with the GFM plugin for
 * tables). Loaded on the first fetch
 * so start-up pays nothing for them. A page Readability finds no article in is converted whole.
 */
export async function htmlToMarkdown(html: string, pageUrl: string): Promise<PageText> {
  const [{ parseHTML }, { Readability }, { default: TurndownService }, { gfm }] = await Promise.all([
    import('linkedom'),
    import('@mozilla/readability').then(commonJsExports),
    import('turndown'),
    import('@joplin/turndown-plugin-gfm').then(commonJsExports),
  ]);
  const { document } = parseHTML(html) as { document: ParsedDocument };
  // linkedom has no baseURI, so Readability would leave links relative; the model needs them whole.
  absolutize(document, 'a', 'href', pageUrl);
  absolutize(document, 'img', 'src', pageUrl);
  const fallbackTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  const fallbackBody = document.body?.innerHTML ?? html;
  let article: { title?: string | null; content?: string | null } | null;
  try {
    article = new Readability(document).parse();
  } catch {
    article = null; // odd markup: convert the whole body instead
  }
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  // Tables stay tables (documentation pages are full of them), as GitHub-flavoured Markdown.
  turndown.use(gfm);
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'form'] as never);
  const markdown = turndown.turndown(article?.content || fallbackBody).trim();
  const title = article?.title?.trim() || fallbackTitle;
  return title ? { title, markdown } : { markdown };
}

function absolutize(document: Pick<ParsedDocument, 'querySelectorAll'>, tag: string, attribute: string, base: string): void {
  for (const element of document.querySelectorAll(`${tag}[${attribute}]`)) {
    const value = element.getAttribute(attribute);
    if (!value || value.startsWith('#')) continue;
    try {
      element.setAttribute(attribute, new URL(value, base).href);
    } catch {
      // not a URL: leave it as written
    }
  }
}
