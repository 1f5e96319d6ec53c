import type { AgentSession } from '@beans/core';
import { HostedSession } from './hosted-session.js';

/** What a client asks for when it starts a session (`POST /v1/sessions`). */
export interface SessionRequest {
  cwd: string;
  prompt?: string;
  provider?: string;
  model?: string;
  permissionMode?: string;
  resume?: string;
  background?: boolean;
}

/** Builds the core session for a request; throws a BeansError (bad folder, no key...) the route turns into 400/422. */
export type OpenSession = (request: SessionRequest) => Promise<AgentSession>;

/** The sessions one `beans serve` hosts, by id. */
export class SessionTable {
  private readonly sessions = new Map<string, HostedSession>();

  constructor(private readonly open: OpenSession) {}

  async start(request: SessionRequest): Promise<HostedSession> {
    const agent = await this.open(request);
    const existing = this.sessions.get(agent.session.id);
    // Resuming a session this server already runs: the client gets the running one.
    if (existing && existing.state !== 'done' && existing.state !== 'failed') {
      await agent.close();
      return existing;
    }
    const hosted = new HostedSession(agent, { title: request.prompt ? undefined : '' });
    this.sessions.set(hosted.id, hosted);
    if (request.prompt) {
      const sent = hosted.send(request.prompt);
      // A background session ends once its first message is answered.
      if (request.background) void sent.finally(() => hosted.close());
    }
    return hosted;
  }

  get(id: string): HostedSession | undefined {
    return this.sessions.get(id);
  }

  list(): HostedSession[] {
    return [...this.sessions.values()].sort((a, b) => b.summary().updatedAt.localeCompare(a.summary().updatedAt));
  }

  /** Stops every session (SIGINT/SIGTERM): their commands end, their files stay resumable. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }
}
