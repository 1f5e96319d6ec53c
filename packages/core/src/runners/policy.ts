import picomatch from 'picomatch';
import { parsePermissionMode } from '../runtime/permission-mode.js';
import type { PermissionMode } from '../permissions/types.js';
import type { SessionRequest } from './database.js';

// What a queued session may choose on a runner. A session is a row anyone with the database can
// write, so it names at most a provider, a model, a permission mode and a turn limit, and the runner
// takes them only within its own settings (`runners.*` in the runner's user settings): its keys,
// endpoints and every other setting stay the runner's. By default a session gets the runner's own
// provider and model, and may ask for any mode but yolo.

export interface RunnerPolicy {
  /** The runner's own provider and model: what a session that names none gets. */
  provider: string;
  model?: string;
  permissionMode: PermissionMode;
  /** Providers a session may name (default: the runner's own). */
  providers: readonly string[];
  /** Model names or globs (`claude-*`) a session may name (default: none but the runner's own model). */
  models: readonly string[];
  /** Modes a session may ask for (default: default, plan, auto-edit). */
  permissionModes: readonly PermissionMode[];
  /** Turns a session may take at most (a session's own maxTurns may only lower it). */
  maxTurns?: number;
}

export const DEFAULT_SESSION_MODES: readonly PermissionMode[] = ['default', 'plan', 'auto-edit'];

/** What the runner runs a session with: its choices, admitted. */
export interface Admitted {
  provider: string;
  model?: string;
  permissionMode: PermissionMode;
  maxTurns?: number;
}

/** The session's choices within the runner's policy, or the sentence saying what it may not choose. */
export function admit(request: SessionRequest, policy: RunnerPolicy, runner: string): Admitted | { problem: string } {
  const provider = request.provider ?? policy.provider;
  if (request.provider && request.provider !== policy.provider && !policy.providers.includes(request.provider))
    return { problem: `Runner ${runner} does not run sessions on provider "${request.provider}" (runners.providers allows: ${policy.providers.join(', ')}).` };
  let model = provider === policy.provider ? policy.model : undefined;
  if (request.model) {
    const own = provider === policy.provider && request.model === policy.model;
    if (!own && !policy.models.some((pattern) => picomatch.isMatch(request.model!, pattern)))
      return {
        problem: `Runner ${runner} does not run sessions on model "${request.model}" (runners.models allows: ${policy.models.length ? policy.models.join(', ') : `only its own${policy.model ? `, ${policy.model}` : ''}`}).`,
      };
    model = request.model;
  }
  let permissionMode = policy.permissionMode;
  if (request.permissionMode) {
    let asked: PermissionMode;
    try {
      asked = parsePermissionMode(request.permissionMode);
    } catch {
      return { problem: `The session asks for an unknown permission mode "${request.permissionMode}".` };
    }
    if (asked !== policy.permissionMode && !policy.permissionModes.includes(asked))
      return {
        problem: `Runner ${runner} does not run sessions in permission mode ${asked} (runners.permissionModes allows: ${policy.permissionModes.join(', ')}).`,
      };
    permissionMode = asked;
  }
  const turns = [request.maxTurns, policy.maxTurns].filter((value): value is number => Number.isInteger(value) && value! > 0);
  return { provider, ...(model ? { model } : {}), permissionMode, ...(turns.length ? { maxTurns: Math.min(...turns) } : {}) };
}
