/** Streaming redraws at most this often. */
const FRAME_MS = 40;

/**
 * When the view redraws: at once for keys, at most every FRAME_MS for streaming, once for a batch
 * of changes (a key that changes several things), and again while finished rows still wait to be
 * handed to the terminal. React subscribes through `subscribe` / `getVersion`.
 */
export class FrameClock {
  private version = 0;
  private readonly listeners = new Set<() => void>();
  private timer?: NodeJS.Timeout;
  private lastFrame = 0;
  private batching = 0;
  private dirty = false;

  /** `beforeFrame` runs just before listeners hear of a frame; `backlog` says whether rows still wait. */
  constructor(
    private readonly beforeFrame: () => void,
    private readonly backlog: () => boolean,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  changed(urgent = true): void {
    if (this.batching > 0) {
      this.dirty = true;
      return;
    }
    const since = Date.now() - this.lastFrame;
    // The check is by the clock, not only by a timer: a burst of buffered chunks is processed in
    // microtasks, where timers never fire.
    if (!urgent && since < FRAME_MS) {
      this.timer ??= setTimeout(() => this.frame(), FRAME_MS - since);
      return;
    }
    this.frame();
  }

  /** Runs `work` with redraws held back, then draws once if anything changed. */
  batch(work: () => void): void {
    this.batching += 1;
    try {
      work();
    } finally {
      this.batching -= 1;
      if (this.batching === 0 && this.dirty) {
        this.dirty = false;
        this.frame();
      }
    }
  }

  /** Draws now (a pending streaming frame is folded into this one). */
  frame(): void {
    this.cancel();
    this.lastFrame = Date.now();
    this.beforeFrame();
    this.version += 1;
    for (const listener of this.listeners) listener();
    if (this.backlog()) this.timer = setTimeout(() => this.frame(), FRAME_MS);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
