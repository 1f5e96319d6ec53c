/** A tree with nested .gitignore files, shared by the glob, grep and list_directory tests. */
export const ignoredTree: Record<string, string> = {
  '.gitignore': 'node_modules/\n*.log\nbuild/\n',
  'src/a.ts': 'export const needle = 1;\n',
  'src/b.ts': 'const x = 2;\n// needle here too\n',
  'src/app.log': 'needle in a log\n',
  'node_modules/pkg/index.ts': 'export const needle = 3;\n',
  'build/out.ts': 'needle\n',
  'pkg/.gitignore': 'generated/\n!keep.log\n',
  'pkg/generated/gen.ts': 'needle generated\n',
  'pkg/keep.log': 'needle kept\n',
  'pkg/other.log': 'needle other\n',
  'pkg/lib.ts': 'export const needle = 4;\n',
  'docs/.gitignore': '*.md\n',
  'docs/readme.md': 'needle md\n',
  'docs/guide.txt': 'needle guide\n',
};

/** What survives the ignore rules above. */
export const visibleFiles = ['.gitignore', 'docs/.gitignore', 'docs/guide.txt', 'pkg/.gitignore', 'pkg/keep.log', 'pkg/lib.ts', 'src/a.ts', 'src/b.ts'];
