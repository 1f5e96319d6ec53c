import { describe, expect, it } from 'vitest';
import { divideRange, placeInRange, ProgressTracker, turnFallback, type WorkflowProgress } from '../../src/workflows/index.js';

describe('progress', () => {
  it("divides 0-100 % by weights and places a worker's own progress in its range", () => {
    expect(divideRange([0, 100], [10, 20, 70])).toEqual([
      [0, 10],
      [10, 30],
      [30, 100],
    ]);
    expect(divideRange([10, 30], [0, 0])).toEqual([
      [10, 20],
      [20, 30],
    ]);
    expect(placeInRange([10, 30], 50)).toBe(20);
    expect(placeInRange([10, 30], 250)).toBe(30);
  });

  it('never goes backwards, and the turn fallback never claims a finished step', () => {
    const reports: WorkflowProgress[] = [];
    const tracker = new ProgressTracker(
      0,
      () => 0,
      (report) => reports.push(report),
    );
    tracker.update('0', [0, 20], 80, 'a');
    tracker.update('0', [0, 20], 30, 'a', 'a worker that reports less');
    tracker.complete('0', [0, 20], 'a');
    tracker.update('1/b0', [20, 50], 50, 'b');
    tracker.update('1/b1', [50, 80], 50, 'c');
    tracker.complete('1', [20, 80], 'parallel');
    expect(reports.map((report) => report.percent)).toEqual([16, 16, 20, 35, 50, 80]);
    expect([1, 2, 3, 100].map(turnFallback)).toEqual([50, 200 / 3, 75, 90]);
  });
});
