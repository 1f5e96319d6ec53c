// What a queued session may choose on a runner (issue 56): its own provider, model and mode by default.
import { describe, expect, it } from 'vitest';
import { admit, DEFAULT_SESSION_MODES, type RunnerPolicy } from '../../src/runners/policy.js';

const policy: RunnerPolicy = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  permissionMode: 'default',
  providers: ['anthropic'],
  models: [],
  permissionModes: DEFAULT_SESSION_MODES,
};

describe('admit', () => {
  it("gives a session that names nothing the runner's own choices", () => {
    expect(admit({}, policy, 'r1')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', permissionMode: 'default' });
  });

  it('takes what the policy allows, and the lower of the turn limits', () => {
    const open = { ...policy, providers: ['anthropic', 'ollama'], models: ['claude-*', 'qwen3'], maxTurns: 30 };
    expect(admit({ provider: 'ollama', model: 'qwen3', permissionMode: 'acceptEdits', maxTurns: 50 }, open, 'r1')).toEqual({
      provider: 'ollama',
      model: 'qwen3',
      permissionMode: 'auto-edit',
      maxTurns: 30,
    });
    expect(admit({ model: 'claude-haiku-4-5', maxTurns: 5 }, open, 'r1')).toMatchObject({ model: 'claude-haiku-4-5', maxTurns: 5 });
    // Another provider with no model named: that provider's default, not the runner's model.
    expect(admit({ provider: 'ollama' }, open, 'r1')).toEqual({ provider: 'ollama', permissionMode: 'default', maxTurns: 30 });
  });

  it('refuses, in one sentence naming the setting, what it does not allow', () => {
    expect(admit({ provider: 'openai' }, policy, 'r1')).toEqual({
      problem: 'Runner r1 does not run sessions on provider "openai" (runners.providers allows: anthropic).',
    });
    expect(admit({ model: 'claude-opus-4' }, policy, 'r1')).toEqual({
      problem: 'Runner r1 does not run sessions on model "claude-opus-4" (runners.models allows: only its own, claude-sonnet-4-5).',
    });
    expect(admit({ permissionMode: 'bypassPermissions' }, policy, 'r1')).toEqual({
      problem: 'Runner r1 does not run sessions in permission mode yolo (runners.permissionModes allows: default, plan, auto-edit).',
    });
    expect(admit({ permissionMode: 'sudo' }, policy, 'r1')).toEqual({ problem: 'The session asks for an unknown permission mode "sudo".' });
  });
});
