import { agent, methods, RequestError, type AgentApp, type AgentContext, type ClientCapabilities, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { CliOptions } from '../options.js';
import { initializeResult, type Initialized } from './initialize.js';
import type { SessionBridge } from './session-bridge.js';

type Bridges = typeof import('./session-bridge.js');

export interface AcpAgentOptions {
  cli: CliOptions;
  /** `initialize` was answered before the SDK loaded (see early-initialize.ts). */
  initialized?: Initialized;
  /** Notes for people (warnings, hook messages): stderr, never stdout, which carries only protocol. */
  warn: (text: string) => void;
}

/**
 * Beans as an ACP agent: the protocol's methods, each translated to calls on a session bridge. The
 * sessions and everything behind them (core) load after `initialize` (usually answered before this
 * module even loads, see early-initialize.ts), while the editor gets ready for `session/new`.
 */
export function createAcpAgent(options: AcpAgentOptions): { app: AgentApp; closeAll: () => Promise<void> } {
  const sessions = new Map<string, SessionBridge>();
  let clientCapabilities: ClientCapabilities = options.initialized?.clientCapabilities ?? {};
  let bridges: Promise<Bridges> | undefined;
  const loadBridges = () => (bridges ??= import('./session-bridge.js'));

  const bridgeOf = (sessionId: string): SessionBridge => {
    const bridge = sessions.get(sessionId);
    if (!bridge) throw RequestError.sessionNotFound(sessionId);
    return bridge;
  };
  const send = (client: AgentContext) => (sessionId: string, update: SessionUpdate) => {
    // A client that went away mid-turn: the turn goes on and is saved; its updates have nowhere to go.
    client.notify(methods.client.session.update, { sessionId, update }).catch(() => undefined);
  };
  const open = async (
    client: AgentContext,
    params: { cwd: string; mcpServers: Parameters<Bridges['SessionBridge']['open']>[0]['mcpServers'] },
    resume?: string,
  ) => {
    const { SessionBridge } = await loadBridges();
    return SessionBridge.open({
      cli: options.cli,
      cwd: params.cwd,
      mcpServers: params.mcpServers,
      resume,
      send: send(client),
      askEditor: (request) => client.request(methods.client.session.requestPermission, request),
      clientCapabilities,
      fsRequests: {
        read: (request) => client.request(methods.client.fs.readTextFile, request),
        write: (request) => client.request(methods.client.fs.writeTextFile, request),
      },
      warn: options.warn,
    });
  };
  /** After the response: the editor learns the session id first, then its commands. */
  const announceCommands = (client: AgentContext, bridge: SessionBridge) =>
    setImmediate(() => send(client)(bridge.id, { sessionUpdate: 'available_commands_update', availableCommands: bridge.commands() }));

  // Core loads while the editor reads the initialize answer, so the first session/new waits less.
  const preload = () => setImmediate(() => void loadBridges().catch(() => undefined));
  const app = agent({ name: 'beans' });
  // Answered already: registering the handler would make the SDK refuse everything until a second one.
  if (options.initialized) preload();
  else
    app.onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      preload();
      return initializeResult();
    });
  app
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const bridge = await open(client, params);
      sessions.set(bridge.id, bridge);
      announceCommands(client, bridge);
      return { sessionId: bridge.id, modes: bridge.modes(), configOptions: bridge.configOptions() };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      let bridge = sessions.get(params.sessionId);
      if (!bridge) {
        const { sessionExists } = await import('./session-list.js');
        if (!(await sessionExists(options.cli, params.cwd, params.sessionId))) throw RequestError.sessionNotFound(params.sessionId);
        bridge = await open(client, params, params.sessionId);
        sessions.set(bridge.id, bridge);
      }
      // The whole conversation goes out before the answer, as the protocol asks.
      bridge.replay();
      announceCommands(client, bridge);
      return { modes: bridge.modes(), configOptions: bridge.configOptions() };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const { listSessions } = await import('./session-list.js');
      return { sessions: await listSessions(options.cli, params.cwd ?? process.cwd()) };
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const bridge = bridgeOf(params.sessionId);
      sessions.delete(params.sessionId);
      await bridge.close();
      return {};
    })
    // The mode is both a mode and a config option: a change through one is announced on the other.
    .onRequest(methods.agent.session.setMode, ({ params, client }) => {
      const bridge = bridgeOf(params.sessionId);
      bridge.setMode(params.modeId);
      setImmediate(() => send(client)(bridge.id, { sessionUpdate: 'config_option_update', configOptions: bridge.configOptions() }));
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params, client }) => {
      const bridge = bridgeOf(params.sessionId);
      const configOptions = bridge.setConfigOption(params.configId, params.value);
      if (params.configId === 'mode')
        setImmediate(() => send(client)(bridge.id, { sessionUpdate: 'current_mode_update', currentModeId: bridge.modes().currentModeId }));
      return { configOptions };
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => ({ stopReason: await bridgeOf(params.sessionId).prompt(params.prompt) }))
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  return {
    app,
    async closeAll() {
      const live = [...sessions.values()];
      sessions.clear();
      await Promise.all(live.map((bridge) => bridge.close()));
    },
  };
}
