import hljs from 'highlight.js/lib/common';
import MarkdownIt, { type MarkdownIt as Markdown } from 'markdown-it';

// The model's answers as the chat renders them: Markdown with code blocks highlighted and tables as
// tables. The model's text is untrusted: HTML in it is shown as text (html: false escapes it), a link
// works only for http(s) and mailto (javascript:, data: and the rest stay text), and a picture is a link
// to it instead of a request to another host.

const SAFE_LINK = /^(https?:|mailto:)/i;

const markdown: Markdown = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, language) {
    const lang = language.trim().split(/\s/)[0]?.toLowerCase() ?? '';
    if (!lang || !hljs.getLanguage(lang)) return '';
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
    } catch {
      return '';
    }
  },
});

markdown.validateLink = (url) => SAFE_LINK.test(url.trim());

const renderToken = markdown.renderer.renderToken.bind(markdown.renderer);
markdown.renderer.rules.link_open = (tokens, index, options) => {
  const token = tokens[index];
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer nofollow');
  return renderToken(tokens, index, options);
};
markdown.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  const src = String(token.attrGet('src') ?? '');
  const alt = markdown.utils.escapeHtml(token.content || src);
  if (!SAFE_LINK.test(src)) return alt;
  return `<a href="${markdown.utils.escapeHtml(src)}" target="_blank" rel="noopener noreferrer nofollow">picture: ${alt}</a>`;
};

/** HTML for an answer: escaped text, safe links, highlighted code (`hljs-*` classes only). */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** HTML for a piece of code, highlighted when the language is known, escaped otherwise. */
export function highlight(code: string, language: string | undefined): string {
  if (language && hljs.getLanguage(language)) {
    try {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
      // falls through to plain text
    }
  }
  return markdown.utils.escapeHtml(code);
}

/** The highlight.js language for a file name, by its extension. */
export function languageOf(file: string): string | undefined {
  const extension = /\.([\w+-]+)$/.exec(file)?.[1]?.toLowerCase();
  return extension && hljs.getLanguage(extension) ? extension : undefined;
}
