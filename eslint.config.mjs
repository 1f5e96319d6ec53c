// Lint rules for the whole repository: typescript-eslint's type-aware checks on the shipped code
// (packages/*/src), where a mistake costs a user something: a promise nobody awaits, an `any` flowing
// on unchecked. Tests, scripts and benchmarks get the recommended rules without type information.
// Layout is Prettier's (.prettierrc.json), so no rule here is about formatting.
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Modules whose job is terminal control sequences (parsing keys, drawing, stripping escapes from what
// reaches the terminal or the model), and the tests and benchmarks that read raw terminal output: a
// control character in their regular expressions is the point, not a slip.
const TERMINAL_MODULES = [
  'packages/cli/src/output/terminal-safe.ts',
  'packages/cli/src/ui/ansi-spans.ts',
  'packages/cli/src/ui/keys.ts',
  'packages/cli/src/ui/styled.ts',
  'packages/core/src/config/show-untrusted.ts',
  'packages/core/src/tools/read-media.ts',
  'packages/core/src/tools/text.ts',
  '**/test/**',
  'bench/**',
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.toolchain/**', 'bench/.out/**', '**/test/fixtures/**', '**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  // A disable comment that no longer silences anything fails the run, as a stale one misleads.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    rules: {
      // `const { secret: _secret, ...shown } = value` is how this code base leaves a field out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
      // A `let` that a callback defined before its assignment reads (a server's handler that kills the
      // worker started next) must stay a `let`: as a const, the callback would read it before it exists.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Zero-width and combining characters are written as escapes on purpose (a class of code points,
      // matched one at a time), never as a raw character that could be read as one glyph.
      'no-misleading-character-class': ['error', { allowEscape: true }],
    },
  },
  { files: TERMINAL_MODULES, rules: { 'no-control-regex': 'off' } },
  // Tests pick fields out of parsed JSON and protocol messages; nothing type-checks them (vitest strips
  // the types), so an `any` there hides nothing a checker would have caught.
  { files: ['**/test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['packages/*/src/**/*.{ts,tsx}'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // An AbortSignal's reason is typed `any`; rejecting with it is how an aborted operation ends (as
      // signal.throwIfAborted() does), so `any` may be a rejection reason. Anything typed must be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true }],
      // Its 27 findings were all `async` implementations of Promise-returning contracts (a tool's
      // execute, a provider's resolveModel, an MCP transport's send, a backend's detach that refuses by
      // throwing): `async` is what turns their throws into rejections, which callers handle. A
      // forgotten `await` is what no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
      // Part of recommendedTypeChecked already; named here because they are why this block exists.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['packages/cli/src/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
