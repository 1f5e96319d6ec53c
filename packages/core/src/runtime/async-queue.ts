/**
 * A queue that one side pushes into and the other drains as an async generator. Pushing never
 * waits; the consumer sees items in order, then the end, or the error that ended the producer.
 */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiting?: () => void;
  private ended = false;
  private failure?: { error: unknown };

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.end();
  }

  async *drain(): AsyncGenerator<T, void> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
