import type { WorkflowProgress } from './types.js';

export type Range = [number, number];

/**
 * Divides a range among parts by their weights: a part of weight 20 out of 100 starting at 10 %
 * owns 10-30 %. With no weight at all the parts share it equally.
 */
export function divideRange(range: Range, weights: readonly number[]): Range[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const span = range[1] - range[0];
  let start = range[0];
  return weights.map((weight, index) => {
    const share = total > 0 ? (span * weight) / total : span / weights.length;
    // The last part ends exactly at the range's end, whatever the rounding on the way.
    const end = index === weights.length - 1 ? range[1] : start + share;
    const part: Range = [start, end];
    start = end;
    return part;
  });
}

/** A worker's own 0-100 % placed in its step's range: `start + local/100 × (end - start)`. */
export function placeInRange(range: Range, local: number): number {
  return range[0] + (clamp(local) / 100) * (range[1] - range[0]);
}

/** A worker that never reports progress advances with its turns: 50 % after one, 67 % after two..., never past 90 %. */
export function turnFallback(turns: number): number {
  return Math.min(90, (100 * turns) / (turns + 1));
}

/**
 * Overall progress of a run: each unit of work (a call, a transform, a finished container) earns
 * the points of its range it has done; the total never goes backwards.
 */
export class ProgressTracker {
  private readonly earned = new Map<string, number>();
  private last: number;

  constructor(
    floor: number,
    private readonly elapsedMs: () => number,
    private readonly emit: (progress: WorkflowProgress) => void,
  ) {
    this.last = clamp(floor);
  }

  get percent(): number {
    return this.last;
  }

  /** A unit at `key` is `local` % done. */
  update(key: string, range: Range, local: number, step: string, message?: string): void {
    this.earned.set(key, placeInRange(range, local) - range[0]);
    this.publish({ step, range, local: clamp(local), message });
  }

  /** A unit (and everything inside it) is finished: it earns its whole range. */
  complete(key: string, range: Range, step: string): void {
    for (const other of [...this.earned.keys()]) if (other.startsWith(`${key}/`)) this.earned.delete(other);
    this.earned.set(key, range[1] - range[0]);
    this.publish({ step, range, local: 100 });
  }

  /** The run finished: exactly 100 %. */
  finish(step: string): void {
    this.last = 100;
    this.emit({ percent: 100, step, range: [0, 100], local: 100, elapsedMs: this.elapsedMs() });
  }

  private publish(report: Omit<WorkflowProgress, 'percent' | 'elapsedMs'>): void {
    let total = 0;
    for (const points of this.earned.values()) total += points;
    // Rounding of many small ranges must not make a finished run read 99.99 % or 100.01 %.
    this.last = Math.max(this.last, Math.min(100, Math.round(total * 100) / 100));
    this.emit({ ...report, percent: this.last, elapsedMs: this.elapsedMs() });
  }
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0;
}
