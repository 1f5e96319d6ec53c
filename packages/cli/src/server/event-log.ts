/** One entry of a session's event stream: its number (1, 2, 3... per session) and its message. */
export interface LoggedEvent<T> {
  id: number;
  value: T;
}

/**
 * Everything a session said, numbered, so a client that connects late (or again, after a dropped
 * connection) replays from the number it last saw and then follows live. Many clients may follow one
 * log; a slow one never holds up the session (listeners are called synchronously and only queue).
 */
export class EventLog<T> {
  private readonly entries: LoggedEvent<T>[] = [];
  private readonly listeners = new Set<(event: LoggedEvent<T>) => void>();
  private closedFlag = false;
  private readonly closers = new Set<() => void>();

  get lastId(): number {
    return this.entries.length;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  append(value: T): number {
    const event = { id: this.entries.length + 1, value };
    this.entries.push(event);
    for (const listener of this.listeners) listener(event);
    return event.id;
  }

  /** The events after `after` (0: all of them). */
  since(after: number): readonly LoggedEvent<T>[] {
    return this.entries.slice(Math.max(0, Math.min(after, this.entries.length)));
  }

  /** Follows new events; `onClose` runs when the log ends (the session was stopped). */
  follow(listener: (event: LoggedEvent<T>) => void, onClose: () => void): () => void {
    if (this.closedFlag) {
      onClose();
      return () => undefined;
    }
    this.listeners.add(listener);
    this.closers.add(onClose);
    return () => {
      this.listeners.delete(listener);
      this.closers.delete(onClose);
    };
  }

  /** No more events: followers are told, and new ones end at once after their replay. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.listeners.clear();
    for (const onClose of this.closers) onClose();
    this.closers.clear();
  }
}
