// Lint rules for the whole repository: typescript-eslint's type-aware checks on the shipped code
// (packages/*/src), where a mistake costs a user something: a promise nobody awaits, an `any` flowing
// on unchecked. Tests, scripts and benchmarks get the recommended rules without type information.
// Layout is Prettier's (.prettierrc.json), so no rule here is about formatting.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.toolchain/**', 'bench/.out/**', '**/test/fixtures/**', '**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    files: ['packages/*/src/**/*.{ts,tsx}'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);
