import { formatBytes } from './text.js';
import { PrivateAddressError } from './web-fetch-address.js';
import { fetchWithLimits, WebFetchError, type FetchLimits } from './web-fetch-http.js';

/** A fetched URL as text for the model: Markdown for HTML, the text itself otherwise. */
export async function fetchPage(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<{ text: string; isError?: boolean }> {
  const outcome = await fetchWithLimits(url, limits, signal);
  if (outcome.kind === 'redirect') {
    return { text: `${outcome.from} redirects (HTTP ${outcome.status}) to another host: ${outcome.to}\n\nCall web_fetch with that URL to read it.` };
  }
  const type = outcome.contentType.split(';')[0].trim().toLowerCase();
  const cut = outcome.truncated ? `\nNote: only the first ${formatBytes(limits.maxBytes)} were read; the page is longer.` : '';
  if (!isText(type)) {
    return {
      text: `${outcome.url} is ${type || 'of an unknown type'} (${formatBytes(outcome.body.length)}${outcome.truncated ? ' or more' : ''}), not a text page; web_fetch reads HTML and text only.`,
      isError: true,
    };
  }
  const body = decode(outcome.body, outcome.contentType);
  if (outcome.status >= 400) {
    return { text: `${outcome.url} answered HTTP ${outcome.status}. The start of its answer:\n${body.slice(0, 500)}`, isError: true };
  }
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    const { htmlToMarkdown } = await import('./web-fetch-markdown.js');
    const page = await htmlToMarkdown(body, outcome.url);
    // A page drawn by scripts has nothing to read without a browser; say so rather than return nothing.
    const markdown =
      page.markdown || '(The page has no readable text: it is probably drawn by JavaScript. Look for another source, such as its API or a raw file.)';
    return { text: `URL: ${outcome.url}${page.title ? `\nTitle: ${page.title}` : ''}${cut}\n\n${markdown}` };
  }
  return { text: `URL: ${outcome.url}${cut}\n\n${body}` };
}

function isText(type: string): boolean {
  return type === '' || type.startsWith('text/') || /[/+](json|xml|xhtml\+xml|javascript|yaml)$/.test(type);
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

export function describeFailure(url: string, error: unknown): string {
  if (error instanceof PrivateAddressError || error instanceof WebFetchError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${new URL(url).hostname} could not be found (DNS). Check the address.`;
  if (code === 'ECONNREFUSED') return `${url} refused the connection. Check the address and port.`;
  const message = error instanceof Error ? error.message : String(error);
  return `Fetching ${url} failed: ${message}`;
}
