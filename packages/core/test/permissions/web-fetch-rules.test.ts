import { describe, expect, it } from 'vitest';
import { createAuthorize } from '../../src/permissions/authorize.js';
import { matchesDomainPattern, parseToolRules } from '../../src/permissions/rules.js';
import type { AskUser, Authorize, PermissionMode } from '../../src/permissions/types.js';
import { beansToolRule } from '../../src/plugins/tool-names.js';
import { createWebFetchTool } from '../../src/tools/web-fetch.js';

const signal = new AbortController().signal;
const webFetch = createWebFetchTool();

function fetchCall(authorize: Authorize, url: string) {
  const input = { url };
  return authorize({ call: { id: 'c', name: 'web_fetch', arguments: input }, tool: webFetch, input }, signal);
}

function policy(options: { mode?: PermissionMode; allow?: string; deny?: string; ask?: AskUser }): Authorize {
  return createAuthorize({
    mode: options.mode ?? 'default',
    allow: options.allow ? parseToolRules(options.allow) : [],
    deny: options.deny ? parseToolRules(options.deny) : [],
    workspace: { root: '/work/project' },
    ...(options.ask ? { ask: options.ask } : {}),
  });
}

describe('web_fetch permissions by domain', () => {
  it('match Claude Code domain rules: the host exactly, *.host for subdomains, * for all', () => {
    expect(matchesDomainPattern('domain:example.com', 'example.com')).toBe(true);
    expect(matchesDomainPattern('domain:example.com', 'EXAMPLE.com')).toBe(true);
    expect(matchesDomainPattern('domain:example.com', 'docs.example.com')).toBe(false);
    expect(matchesDomainPattern('domain:example.com', 'example.com.evil.net')).toBe(false);
    expect(matchesDomainPattern('domain:*.example.com', 'docs.example.com')).toBe(true);
    expect(matchesDomainPattern('domain:*.example.com', 'notexample.com')).toBe(false);
    expect(matchesDomainPattern('domain:*', 'anything.org')).toBe(true);
  });

  it('one-shot: denied without a rule, with the rule to re-run with', async () => {
    const decision = await fetchCall(policy({}), 'https://docs.example.com/page');
    expect(decision.allow).toBe(false);
    expect(!decision.allow && decision.reason).toContain('--allowed-tools "web_fetch(domain:docs.example.com)"');
  });

  it('one-shot: an allow rule for the domain lets it run, other domains stay denied', async () => {
    const authorize = policy({ allow: 'web_fetch(domain:example.com)' });
    expect((await fetchCall(authorize, 'https://example.com/a')).allow).toBe(true);
    expect((await fetchCall(authorize, 'https://other.org/a')).allow).toBe(false);
  });

  it('a deny rule for a domain wins over yolo', async () => {
    const authorize = policy({ mode: 'yolo', deny: 'web_fetch(domain:evil.example)' });
    expect((await fetchCall(authorize, 'https://evil.example/x')).allow).toBe(false);
    expect((await fetchCall(authorize, 'https://good.example/x')).allow).toBe(true);
  });

  it('chat: asks for a new domain; "always" covers that domain only, for the session', async () => {
    const asked: string[] = [];
    const authorize = policy({ ask: async (request) => (asked.push((request.input as { url: string }).url), { decision: 'always' }) });
    expect((await fetchCall(authorize, 'https://a.example/1')).allow).toBe(true);
    expect((await fetchCall(authorize, 'https://a.example/2')).allow).toBe(true);
    expect((await fetchCall(authorize, 'https://b.example/1')).allow).toBe(true);
    expect(asked).toEqual(['https://a.example/1', 'https://b.example/1']);
  });

  it('plan mode does not refuse reading a page (it changes nothing), but still asks for the domain', async () => {
    let asked = 0;
    const authorize = policy({ mode: 'plan', ask: async () => (asked++, { decision: 'once' }) });
    expect((await fetchCall(authorize, 'https://a.example/1')).allow).toBe(true);
    expect(asked).toBe(1);
  });

  it("reads Claude Code's WebFetch rules", () => {
    expect(beansToolRule('WebFetch(domain:example.com)')).toBe('web_fetch(domain:example.com)');
    expect(beansToolRule('WebFetch')).toBe('web_fetch');
  });
});
