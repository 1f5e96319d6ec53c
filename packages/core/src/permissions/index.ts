export * from './types.js';
export { createAuthorize, type AuthorizeOptions } from './authorize.js';
export {
  parseToolRules,
  unknownRuleTools,
  matchesCommandPattern,
  matchesPathPattern,
  findDenyingRule,
  allowRulesCover,
  type ToolRule,
  type SubjectKind,
} from './rules.js';
export { splitShellCommand, type SplitCommand } from './shell-command.js';
