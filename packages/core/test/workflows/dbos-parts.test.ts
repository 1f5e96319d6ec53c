// The DBOS backend's pure parts: how a call is named (its identity across processes and
// recoveries), and how database failures become one sentence. The backend itself runs against a
// real PostgreSQL in test/e2e/workflow-dbos.test.ts.
import { describe, expect, it } from 'vitest';
import { executeRun, parseWorkflow, type AgentCall, type RunState } from '../../src/workflows/index.js';
import { callId } from '../../src/workflows/dbos/calls.js';
import { databaseProblem, describeDatabase, isConnectionLoss } from '../../src/workflows/dbos/database.js';

describe('DBOS call identity', () => {
  it('gives every unit and every attempt its own id, the same on a second execution', async () => {
    const source =
      '---\nname: ids\ndurability:\n  retry: { maxAttempts: 2, backoffMs: 0 }\nsteps:\n  - parallel:\n      - { call: a }\n      - { call: b }\n  - loop: { over: [1, 2] }\n    steps: [ { call: c } ]\n---\n';
    const workflow = await parseWorkflow(source, '/w/ids.md');
    const ids = async () => {
      const seen: string[] = [];
      const state: RunState = {
        id: 'r1',
        workflow: { name: 'ids', path: '/w/ids.md' },
        status: 'running',
        inputs: {},
        artifacts: {},
        done: [],
        loops: {},
        branches: {},
        percent: 0,
        startedAt: '',
        updatedAt: '',
        elapsedMs: 0,
      };
      let failedOnce = false;
      await executeRun({
        workflow,
        state,
        save: () => {},
        runner: {
          run: async (call: AgentCall) => {
            seen.push(callId('r1', 1, call.key, call.attempt));
            // The first try of item 2 fails: its retry is a new call, not the same one again.
            if (call.key === '1/i1/0' && !failedOnce) {
              failedOnce = true;
              throw new Error('flaky');
            }
            return 'ok';
          },
        },
      });
      return seen;
    };
    const first = await ids();
    expect([...first].sort()).toEqual(['r1/g1/0/b0/a1', 'r1/g1/0/b1/a1', 'r1/g1/1/i0/0/a1', 'r1/g1/1/i1/0/a1', 'r1/g1/1/i1/0/a2']);
    expect(await ids()).toEqual(first);
  });
});

describe('database problems', () => {
  const url = 'postgresql://alice:s3cret@db.example:6543/flows';
  it('names the database without its password', () => {
    expect(describeDatabase(url)).toBe('alice@db.example:6543/flows');
    expect(describeDatabase('postgresql://db/x')).toBe('db:5432/x');
  });

  it('turns each failure into one sentence naming the setting, exit 3', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
        /^Cannot reach PostgreSQL at alice@db\.example:6543\/flows: connection refused\. Start the server or fix workflows\.databaseUrl/,
      ],
      [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND db.example' }, /unknown host\. Fix workflows\.databaseUrl \(or BEANS_DATABASE_URL\)\.$/],
      [
        { code: '28P01', message: 'password authentication failed for user "alice"' },
        /refused the credentials \(password authentication failed for user "alice"\)/,
      ],
      [{ code: '3D000', message: 'database "flows" does not exist' }, /has no such database/],
      [{ message: 'timeout expired' }, /no answer within 5 s/],
    ];
    for (const [error, expected] of cases) {
      const problem = databaseProblem(Object.assign(new Error(error.message), error), url);
      expect(problem.exitCode).toBe(3);
      expect(problem.message).toMatch(expected);
      expect(problem.message).not.toContain('s3cret');
    }
  });

  it('retries a lost connection, not a bad query', () => {
    expect(isConnectionLoss(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
  });
});
