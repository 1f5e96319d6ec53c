/** What `--permission-mode` accepts: Beans' modes and Claude Code's names for them (parsePermissionMode maps those). */
export const PERMISSION_MODE_CHOICES = ['default', 'auto-edit', 'yolo', 'plan', 'acceptEdits', 'bypassPermissions', 'dontAsk'];
