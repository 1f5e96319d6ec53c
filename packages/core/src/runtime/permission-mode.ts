import { UsageError } from '../errors.js';
import type { PermissionMode } from '../permissions/types.js';

/** The Claude Agent SDK's permission modes; Beans accepts them beside its own names. */
export type SdkPermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk';

const FROM_SDK: Record<SdkPermissionMode, PermissionMode> = {
  default: 'default',
  acceptEdits: 'auto-edit',
  bypassPermissions: 'yolo',
  plan: 'plan',
  // Never asks: what no rule allows is denied, which is what Beans does whenever nobody can be asked.
  dontAsk: 'default',
};

const TO_SDK: Record<PermissionMode, Exclude<SdkPermissionMode, 'dontAsk'>> = {
  default: 'default',
  'auto-edit': 'acceptEdits',
  yolo: 'bypassPermissions',
  plan: 'plan',
};

/** Beans' mode for a Beans or SDK mode name; an unknown name is a usage error listing both sets. */
export function parsePermissionMode(name: string): PermissionMode {
  if (name in TO_SDK) return name as PermissionMode;
  if (name in FROM_SDK) return FROM_SDK[name as SdkPermissionMode];
  throw new UsageError(
    `Unknown permission mode "${name}". Use one of ${[...Object.keys(TO_SDK), ...Object.keys(FROM_SDK).filter((m) => m !== 'default')].join(', ')}.`,
  );
}

/** True for the SDK mode that forbids asking even when someone could answer. */
export function isDontAsk(name: string | undefined): boolean {
  return name === 'dontAsk';
}

export function sdkPermissionMode(mode: PermissionMode): Exclude<SdkPermissionMode, 'dontAsk'> {
  return TO_SDK[mode];
}
