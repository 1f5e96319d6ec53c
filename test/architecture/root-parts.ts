import path from 'node:path';
import ts from 'typescript';

// The parts buildAgentSession calls, read from its source: a call whose result a `const` of the
// root holds (awaited or not), or that the root returns. Shared by the composition-root tests.
export const runtimeDir = path.resolve(import.meta.dirname, '../../packages/core/src/runtime');
const rootFile = path.join(runtimeDir, 'agent-session.ts');

export interface RootPart {
  /** The function called. */
  name: string;
  /** The runtime/ file it is imported from. */
  file: string;
  call: ts.CallExpression;
}

function rootFunction(source: ts.SourceFile): ts.FunctionDeclaration {
  const found = source.statements.find((node): node is ts.FunctionDeclaration => ts.isFunctionDeclaration(node) && node.name?.text === 'buildAgentSession');
  if (!found?.body) throw new Error('buildAgentSession not found in agent-session.ts');
  return found;
}

function importsOf(source: ts.SourceFile): Map<string, string> {
  const imports = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) imports.set(element.name.text, statement.moduleSpecifier.text.replace(/^\.\//, '').replace(/\.js$/, '.ts'));
  }
  return imports;
}

/** The parts in the order the root calls them. */
export function rootParts(source = ts.createSourceFile(rootFile, ts.sys.readFile(rootFile)!, ts.ScriptTarget.Latest, true)): RootPart[] {
  const imports = importsOf(source);
  const parts: RootPart[] = [];
  const called = (expression: ts.Expression | undefined) => {
    let inner = expression;
    if (inner && ts.isAwaitExpression(inner)) inner = inner.expression;
    if (!inner || !ts.isCallExpression(inner) || !ts.isIdentifier(inner.expression)) return;
    const file = imports.get(inner.expression.text);
    if (file) parts.push({ name: inner.expression.text, file, call: inner });
  };
  for (const statement of rootFunction(source).body!.statements) {
    if (ts.isVariableStatement(statement)) for (const declaration of statement.declarationList.declarations) called(declaration.initializer);
    if (ts.isReturnStatement(statement)) called(statement.expression);
  }
  return parts;
}

/** A type-checked program over the root, for what each part's input is. */
export function rootProgram(): { program: ts.Program; source: ts.SourceFile } {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.resolve(runtimeDir, '../../tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('packages/core/tsconfig.json did not parse');
  const program = ts.createProgram([rootFile], { ...config.options, noEmit: true, composite: false, incremental: false });
  return { program, source: program.getSourceFile(rootFile)! };
}

const PICKED = new Set(['AgentSessionOptions', 'BeansConfig']);

/** Which options or settings a declared type picks: `Pick<AgentSessionOptions, 'a' | 'b'>`, `BeansConfig['lsp']`, through aliases and `&`. */
function pickedFields(checker: ts.TypeChecker, node: ts.TypeNode | undefined): string[] {
  if (!node) return [];
  if (ts.isIntersectionTypeNode(node)) return node.types.flatMap((member) => pickedFields(checker, member));
  if (ts.isIndexedAccessTypeNode(node) && ts.isTypeReferenceNode(node.objectType) && PICKED.has(node.objectType.typeName.getText())) {
    return ts.isLiteralTypeNode(node.indexType) && ts.isStringLiteral(node.indexType.literal) ? [node.indexType.literal.text] : [];
  }
  if (!ts.isTypeReferenceNode(node)) return [];
  const [from, keys] = node.typeArguments ?? [];
  if (node.typeName.getText() === 'Pick' && from && ts.isTypeReferenceNode(from) && PICKED.has(from.typeName.getText()) && keys) {
    const literals = ts.isUnionTypeNode(keys) ? keys.types : [keys];
    return literals.flatMap((literal) => (ts.isLiteralTypeNode(literal) && ts.isStringLiteral(literal.literal) ? [literal.literal.text] : []));
  }
  // An alias of one (PermissionOptions, DeferSettings, WorkspaceOptions).
  let symbol = checker.getSymbolAtLocation(node.typeName);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const alias = symbol?.declarations?.find(ts.isTypeAliasDeclaration);
  return alias ? pickedFields(checker, alias.type) : [];
}

const withFields = (name: string, fields: string[]) => (fields.length ? `${name} (${[...new Set(fields)].sort().join(', ')})` : name);

/**
 * What a part receives, as the runtime map writes it: its input's fields in order, and for a field
 * that is a few of the options or settings, which ones (sorted): `options (continue, resume)`,
 * `settings (lsp)`.
 */
export function receives(checker: ts.TypeChecker, part: RootPart): string {
  const declaration = checker.getResolvedSignature(part.call)?.getDeclaration();
  const [parameter] = declaration?.parameters ?? [];
  if (!parameter) return '';
  // A part whose whole input is a few of the options (settleWorkspace).
  if (parameter.name.getText() === 'options') return withFields('options', pickedFields(checker, parameter.type));
  const input = checker.getTypeAtLocation(parameter);
  return input
    .getProperties()
    .map((property) => {
      const declared = property.valueDeclaration;
      return withFields(property.name, declared && ts.isPropertySignature(declared) ? pickedFields(checker, declared.type) : []);
    })
    .join(', ');
}
