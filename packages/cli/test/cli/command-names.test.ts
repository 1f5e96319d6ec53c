import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, buildProgram } from '../../src/cli.js';

const noop = () => undefined;

describe('commands declared on demand', () => {
  it('COMMAND_NAMES lists exactly the commands the full program declares', () => {
    const declared = buildProgram(noop).commands.map((command) => command.name());
    expect([...declared].sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it('a command line without a command name or help declares none', () => {
    expect(buildProgram(noop, ['-p', 'hi', '--provider', 'ollama']).commands).toEqual([]);
  });

  it('a command name anywhere, or help, declares them all', () => {
    for (const argv of [['mcp', 'list'], ['--yolo', 'sessions', 'list'], ['-p', 'chat'], ['--help'], ['-h'], ['help']]) {
      expect(buildProgram(noop, argv).commands.map((command) => command.name())).toEqual(buildProgram(noop).commands.map((command) => command.name()));
    }
  });
});
