import type { McpServerEntry } from './mcp-config.js';

/** Claude Code's McpSetServersResult. */
export interface McpSetServersResult {
  added: string[];
  removed: string[];
  errors: Record<string, string>;
}

/** What control needs of one server's connection (mcp-servers.ts' ServerConnection). */
export interface ControlledConnection {
  /** Connects once; never rejects (a failure shows in `status`). */
  start(): Promise<void>;
  close(): Promise<void>;
  status(): { status: string; error?: string };
}

/** Live control of an MCP server set: Claude Code's mcp_toggle, mcp_reconnect and mcp_set_servers. */
export interface ServerControl {
  toggle(name: string, enabled: boolean): Promise<void>;
  reconnect(name: string): Promise<void>;
  setServers(entries: readonly McpServerEntry[]): Promise<McpSetServersResult>;
}

export interface ServerSlot<C extends ControlledConnection = ControlledConnection> {
  entry: McpServerEntry;
  /** Undefined while the server is disabled. */
  connection?: C;
  /** Named by a `setServers` call: the next call that leaves it out removes it. */
  managed?: boolean;
}

/** toggle, reconnect and setServers over the set's slots; one change at a time. */
export function serverControl<C extends ControlledConnection>(
  slots: ServerSlot<C>[],
  open: (entry: McpServerEntry) => C,
  watchExit: () => void,
  changed: () => void,
): ServerControl {
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const slotOf = (name: string): ServerSlot<C> => {
    const slot = slots.find((candidate) => candidate.entry.name === name);
    if (!slot) throw new Error(`There is no MCP server named "${name}" (servers: ${slots.map((candidate) => candidate.entry.name).join(', ') || 'none'}).`);
    return slot;
  };
  const connectAgain = async (slot: ServerSlot<C>): Promise<C> => {
    await slot.connection?.close();
    const connection = open(slot.entry);
    slot.connection = connection;
    await connection.start();
    return connection;
  };
  return {
    toggle: (name, enabled) =>
      serially(async () => {
        const slot = slotOf(name);
        if (enabled === (slot.connection !== undefined)) return;
        if (enabled) await connectAgain(slot);
        else {
          const connection = slot.connection!;
          slot.connection = undefined;
          await connection.close();
        }
        changed();
      }),
    reconnect: (name) =>
      serially(async () => {
        const slot = slotOf(name);
        if (!slot.connection) throw new Error(`The MCP server ${name} is disabled: enable it first.`);
        const status = (await connectAgain(slot)).status();
        changed();
        if (status.status === 'failed') throw new Error(status.error ?? `The MCP server ${name} did not connect.`);
      }),
    setServers: (entries) =>
      serially(async () => {
        const named = new Set(entries.map((entry) => entry.name));
        const removed = slots.filter((slot) => slot.managed && !named.has(slot.entry.name));
        for (const slot of removed) slots.splice(slots.indexOf(slot), 1);
        const fresh: ServerSlot<C>[] = [];
        for (const entry of entries) {
          const slot = slots.find((candidate) => candidate.entry.name === entry.name);
          if (slot && JSON.stringify(slot.entry.config) === JSON.stringify(entry.config)) {
            slot.managed = true;
            continue;
          }
          if (slot) {
            await slot.connection?.close();
            slots.splice(slots.indexOf(slot), 1);
          }
          fresh.push({ entry, managed: true });
        }
        slots.push(...fresh);
        watchExit();
        await Promise.all([...removed.map((slot) => slot.connection?.close()), ...fresh.map((slot) => connectAgain(slot))]);
        const errors: Record<string, string> = {};
        for (const slot of fresh) {
          const status = slot.connection!.status();
          if (status.status === 'failed') errors[slot.entry.name] = status.error ?? 'did not connect';
        }
        if (removed.length > 0 || fresh.length > 0) changed();
        return { added: fresh.map((slot) => slot.entry.name), removed: removed.map((slot) => slot.entry.name), errors };
      }),
  };
}
