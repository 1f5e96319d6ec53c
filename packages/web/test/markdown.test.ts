// The web view's Markdown is the model's text: HTML in it is shown, links run nothing, pictures load
// nothing. The renderer is the page's own module, run here as the browser runs it.
import { describe, expect, it } from 'vitest';
import { highlight, renderMarkdown } from '../src/markdown.ts';

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);

describe('renderMarkdown', () => {
  it('escapes the HTML an answer contains instead of rendering it', () => {
    const html = renderMarkdown(
      '<script>alert(1)</script> <img src=x onerror=alert(2)> <a href="javascript:x">y</a>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/<(script|img|iframe)\b/);
    // The one link is the https address in the iframe's text (linkified, and safe).
    expect(hrefs(html)).toEqual(['https://evil.example']);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
  });

  it('makes links only of http, https and mailto, opened apart from the page', () => {
    const html = renderMarkdown(
      [
        '[a](javascript:alert(1))',
        '[b](JaVaScRiPt:alert(1))',
        '[c](  javascript:alert(1))',
        '[d](vbscript:msgbox)',
        '[e](data:text/html;base64,PHNjcmlwdD4=)',
        '[f](file:///etc/passwd)',
        '<javascript:alert(1)>',
        '[g](https://example.com/ok)',
        '[h](mailto:someone@example.com)',
        'see http://example.org/auto',
      ].join('\n\n'),
    );
    expect(hrefs(html)).toEqual(['https://example.com/ok', 'mailto:someone@example.com', 'http://example.org/auto']);
    expect(html.match(/<a /g)).toHaveLength(3);
    for (const anchor of html.match(/<a [^>]*>/g)!) expect(anchor).toContain('rel="noopener noreferrer nofollow"');
  });

  it('turns a picture into a link to it (or its text), never an <img> that would fetch another host', () => {
    const html = renderMarkdown('![chart](https://tracker.example/p.png) ![x](javascript:alert(1)) ![d](data:image/png;base64,AAAA)');
    expect(html).not.toContain('<img');
    expect(hrefs(html)).toEqual(['https://tracker.example/p.png']);
    expect(html).toContain('picture: chart');
  });

  it('renders code blocks as <pre><code> highlighted by language, and tables as <table>', () => {
    const html = renderMarkdown('```python\ndef f(): return "<b>"\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |');
    expect(html).toMatch(/<pre><code class="language-python"><span class="hljs-keyword">def<\/span>/);
    expect(html).toContain('&lt;b&gt;');
    expect(html).toMatch(/<table>[\s\S]*<th>a<\/th>[\s\S]*<td>2<\/td>/);
    expect(renderMarkdown('```nosuchlanguage\n<i>x</i>\n```')).toContain('&lt;i&gt;x&lt;/i&gt;');
  });
});

describe('highlight', () => {
  it('escapes code of an unknown language, highlights a known one', () => {
    expect(highlight('<b>&', undefined)).toBe('&lt;b&gt;&amp;');
    expect(highlight('const a = "<b>";', 'ts')).toBe('<span class="hljs-keyword">const</span> a = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>;');
  });
});
