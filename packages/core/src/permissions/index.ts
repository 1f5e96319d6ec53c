export * from './types.js';
export { createAuthorize, type AuthorizeOptions } from './authorize.js';
export {
  parseToolRules,
  unknownRuleTools,
  matchesCommandPattern,
  matchesPathPattern,
  matchesDomainPattern,
  findDenyingRule,
  allowRulesCover,
  type ToolRule,
  type SubjectKind,
} from './rules.js';
export { analyzeShellCommand, type ShellAnalysis, type SimpleCommand } from './shell-parse.js';
export { approvalBlocker, commandVariants } from './command-rules.js';
export { createReadDenied } from './read-deny.js';
