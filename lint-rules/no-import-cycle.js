import path from 'node:path';
import ts from 'typescript';

/**
 * Forbids an import that is part of a cycle, counting every import and re-export: `import type` too, which
 * `import-x/no-cycle` skips with no option to count it. A cycle of types alone changes nothing at run time, but
 * its modules can no longer be understood, moved or tested one without the others.
 *
 * The graph is the typed-lint program's own files (declaration files and packages left out), built once per
 * program; an import is reported when the module it names leads back to the importing one.
 */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included' },
    schema: [],
    messages: { cycle: 'Import cycle, type imports counted: {{route}}' },
  },
  create(context) {
    const program = context.sourceCode.parserServices?.program;
    if (program === undefined) throw new Error('no-import-cycle needs typed linting (parserOptions.projectService)');
    const modules = modulesOf(program);
    const importer = path.resolve(context.physicalFilename);
    const check = (node, specifier) => {
      const imported = modules.resolve(specifier, importer);
      if (imported === undefined || imported === importer) return;
      const route = modules.routeBack(imported, importer);
      if (route === undefined) return;
      const shown = [importer, ...route].map((file) => path.relative(program.getCurrentDirectory(), file)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { route: shown } });
    };
    const checkSource = (node) => {
      if (node.source?.type === 'Literal' && typeof node.source.value === 'string') check(node, node.source.value);
    };
    return {
      ImportDeclaration: checkSource,
      ExportNamedDeclaration: checkSource,
      ExportAllDeclaration: checkSource,
      ImportExpression: checkSource,
      TSImportType(node) {
        const literal = node.argument.type === 'TSLiteralType' ? node.argument.literal : undefined;
        if (literal?.type === 'Literal' && typeof literal.value === 'string') check(node, literal.value);
      },
      TSImportEqualsDeclaration(node) {
        const reference = node.moduleReference;
        if (reference.type === 'TSExternalModuleReference' && reference.expression.type === 'Literal') check(node, reference.expression.value);
      },
    };
  },
};

const MODULES = new WeakMap();

/** The program's own modules, what each imports, and which of them lie on a cycle together. */
function modulesOf(program) {
  let modules = MODULES.get(program);
  if (modules === undefined) {
    modules = buildModules(program);
    MODULES.set(program, modules);
  }
  return modules;
}

function buildModules(program) {
  const options = program.getCompilerOptions();
  const cache = ts.createModuleResolutionCache(program.getCurrentDirectory(), (name) => name, options);
  const own = new Set();
  for (const file of program.getSourceFiles()) {
    if (!file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file)) own.add(path.resolve(file.fileName));
  }
  const resolve = (specifier, importer) => {
    const resolved = ts.resolveModuleName(specifier, importer, options, ts.sys, cache).resolvedModule;
    const file = resolved === undefined ? undefined : path.resolve(resolved.resolvedFileName);
    return file !== undefined && own.has(file) ? file : undefined;
  };
  const imports = new Map();
  for (const file of program.getSourceFiles()) {
    const importer = path.resolve(file.fileName);
    if (!own.has(importer)) continue;
    const targets = new Set();
    for (const specifier of specifiersOf(file)) {
      const target = resolve(specifier, importer);
      if (target !== undefined) targets.add(target);
    }
    imports.set(importer, targets);
  }
  const component = stronglyConnectedComponents(imports);
  return {
    resolve,
    /** The shortest path of imports from `from` back to `to`, when the two lie on a cycle; undefined otherwise. */
    routeBack(from, to) {
      if (component.get(from) === undefined || component.get(from) !== component.get(to)) return undefined;
      const cameFrom = new Map([[from, undefined]]);
      for (const queue = [from]; queue.length > 0;) {
        const file = queue.shift();
        if (file === to) break;
        for (const next of imports.get(file) ?? []) {
          if (cameFrom.has(next) || component.get(next) !== component.get(from)) continue;
          cameFrom.set(next, file);
          queue.push(next);
        }
      }
      const route = [];
      for (let file = to; file !== undefined; file = cameFrom.get(file)) route.unshift(file);
      return route;
    },
  };
}

/** Every module a file names: imports and re-exports of any kind, `import('…')` in types and in code. */
function specifiersOf(file) {
  const specifiers = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      specifiers.push(node.moduleReference.expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specifiers;
}

/** Tarjan's algorithm: each module mapped to its component's number, for modules on a cycle only. */
function stronglyConnectedComponents(imports) {
  const index = new Map();
  const lowLink = new Map();
  const stack = [];
  const onStack = new Set();
  const component = new Map();
  let next = 0;
  let components = 0;
  const connect = (file) => {
    index.set(file, next);
    lowLink.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        lowLink.set(file, Math.min(lowLink.get(file), lowLink.get(target)));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file), index.get(target)));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const members = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1) {
      for (const each of members) component.set(each, components);
      components++;
    }
  };
  for (const file of imports.keys()) if (!index.has(file)) connect(file);
  return component;
}
