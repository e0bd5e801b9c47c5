/**
 * DESIGN.md's layering as data, and a checker that reads a source tree's imports with a real parser
 * (@babel/parser, TypeScript syntax: `import type` and `type` specifiers are told from value imports, a
 * module path inside a string or a comment is not an import, `process` inside a string is not a use).
 * test/architecture.test.ts runs it on src/ with the top-level bench/ and on a fixture tree with one
 * violation of each kind.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse } from '@babel/parser';

/** Layers in DESIGN.md's order; errors.ts is the layer "errors". */
export const LAYERS = [
  'errors',
  'util',
  'metrics',
  'protocol',
  'profile',
  'workload',
  'schedule',
  'client',
  'measure',
  'aggregate',
  'runner',
  'report',
  'emulator',
  'cli',
  'bench',
] as const;
export type Layer = (typeof LAYERS)[number];

/** Every layer may import these (DESIGN: "every layer may import metrics/, util/, errors.ts"). */
const COMMON: readonly Layer[] = ['errors', 'util', 'metrics'];
const ALL: readonly Layer[] = LAYERS.filter((layer) => layer !== 'bench');

/**
 * Value imports, layer -> layers it may import (besides itself), as DESIGN.md states them: runner ->
 * profile, workload, schedule, client, measure, aggregate; report -> aggregate, metrics (never runner);
 * client never imports schedule, aggregate or report; the emulator imports only protocol/, util/,
 * errors.ts; cli -> everything; bench may import any layer and is imported by none. protocol/ is the wire
 * vocabulary that the layers speaking the API share.
 */
export const VALUE_EDGES: Readonly<Record<Layer, readonly Layer[]>> = {
  errors: [],
  util: ['errors'],
  metrics: ['errors', 'util'],
  protocol: COMMON,
  profile: [...COMMON, 'protocol'],
  workload: [...COMMON, 'protocol', 'profile'],
  schedule: [...COMMON, 'profile'],
  client: [...COMMON, 'protocol', 'profile'],
  measure: [...COMMON, 'protocol', 'profile', 'client'],
  aggregate: [...COMMON, 'protocol', 'profile', 'client', 'measure'],
  runner: [...COMMON, 'protocol', 'profile', 'workload', 'schedule', 'client', 'measure', 'aggregate'],
  report: [...COMMON, 'aggregate'],
  emulator: ['errors', 'util', 'protocol'],
  cli: ALL,
  bench: ALL,
};

/** The harness: the layers that measure. The emulator never imports them, nor they the emulator. */
const HARNESS: readonly Layer[] = LAYERS.slice(LAYERS.indexOf('metrics'), LAYERS.indexOf('report') + 1);

/**
 * `import type` may also name a layer further down the harness (a type is vocabulary, not a dependency
 * at run time), but never one above (nothing below report/ names report/, even as a type), never across
 * the emulator/harness line, and never what DESIGN forbids outright (client -> schedule, aggregate, report).
 */
function typeImportAllowed(from: Layer, to: Layer): boolean {
  if (VALUE_EDGES[from].includes(to)) return true;
  if (from === 'client' && (to === 'schedule' || to === 'aggregate' || to === 'report')) return false;
  if (!HARNESS.includes(from) || !HARNESS.includes(to)) return false;
  return LAYERS.indexOf(to) < LAYERS.indexOf(from);
}

/** Packages that belong to some layers only (value imports; a type import of node:net's Socket is no use of it). */
export const PACKAGE_LAYERS: Readonly<Record<string, readonly Layer[]>> = {
  undici: ['client', 'bench'],
  'node:http': ['emulator', 'bench'],
  'node:https': ['emulator', 'bench'],
  'node:net': ['emulator', 'bench'],
  yargs: ['cli'],
  'yargs/helpers': ['cli'],
  'node:process': ['cli', 'bench'],
};

/**
 * `process`: DESIGN says only cli/ touches it. bench/ is the other entry point (`npm run bench` is its own
 * program, imported by nothing), so it may too.
 */
export const PROCESS_LAYERS: readonly Layer[] = ['cli', 'bench'];

/**
 * Folders of sections (DESIGN: "Sections of the profile never import each other by value"), relative to
 * src/. A file below such a folder belongs to the section named by its first part there: `capacity.ts` is
 * section `capacity`, `trace/trace-file.ts` section `trace` (a section past about 300 lines is a folder).
 * A file of one section never value-imports a file of another section of the same folder; type imports,
 * imports within a section, and imports of the layer's shared files outside the folder (profile/'s
 * field-kinds.ts, profile-issue.ts, ...) are allowed. What the sections have in common goes outside the
 * folder, and what combines them (profile-schema.ts, cross-field-checks.ts, resolve-profile.ts, format-plan.ts)
 * imports them from outside it.
 */
export const SECTION_FOLDERS: readonly string[] = ['profile/sections'];

export type ViolationKind =
  | 'unknown-layer'
  | 'layer'
  | 'type-layer'
  | 'cycle'
  | 'package'
  | 'process'
  | 'section'
  | 'room';

export interface Violation {
  readonly kind: ViolationKind;
  readonly message: string;
}

interface ImportRecord {
  /** Resolved file of a relative import, or the package name. */
  readonly target: string;
  readonly relative: boolean;
  readonly typeOnly: boolean;
  readonly line: number;
}

interface FileFacts {
  readonly imports: ImportRecord[];
  /** Lines where the global `process` is used. */
  readonly processLines: number[];
}

interface Node {
  readonly type: string;
  readonly loc?: { readonly start: { readonly line: number } };
  readonly [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function packageName(spec: string): string {
  if (spec.startsWith('node:')) return spec;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : spec === 'yargs/helpers' ? spec : (parts[0] as string);
}

/** Reads a file's imports (static, re-exports, dynamic, `import('x').T` types) and its uses of `process`. */
export function readFileFacts(file: string): FileFacts {
  const ast = parse(readFileSync(file, 'utf8'), {
    sourceType: 'module',
    plugins: ['typescript'],
    errorRecovery: false,
  });
  const imports: ImportRecord[] = [];
  const processLines: number[] = [];
  const add = (spec: string, typeOnly: boolean, node: Node): void => {
    const relativeSpec = spec.startsWith('.');
    const target = relativeSpec ? resolve(dirname(file), spec.replace(/\.js$/, '.ts')) : packageName(spec);
    imports.push({ target, relative: relativeSpec, typeOnly, line: node.loc?.start.line ?? 0 });
  };
  const visit = (node: Node, parent: Node | null, key: string): void => {
    switch (node.type) {
      case 'ImportDeclaration': {
        const specifiers = (node['specifiers'] as Node[]) ?? [];
        const typeOnly =
          node['importKind'] === 'type' ||
          (specifiers.length > 0 && specifiers.every((s) => s['importKind'] === 'type'));
        add((node['source'] as { value: string }).value, typeOnly, node);
        return;
      }
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration': {
        const source = node['source'] as { value: string } | null;
        if (source) {
          const specifiers = (node['specifiers'] as Node[] | undefined) ?? [];
          const typeOnly =
            node['exportKind'] === 'type' ||
            (specifiers.length > 0 && specifiers.every((s) => s['exportKind'] === 'type'));
          add(source.value, typeOnly, node);
        }
        break;
      }
      case 'TSImportType': {
        const argument = node['argument'] as Node;
        const literal = argument.type === 'TSLiteralType' ? (argument['literal'] as Node) : argument;
        if (typeof literal['value'] === 'string') add(literal['value'], true, node);
        return;
      }
      case 'CallExpression': {
        const callee = node['callee'] as Node;
        const [first] = (node['arguments'] as Node[]) ?? [];
        if (callee.type === 'Import' && first?.type === 'StringLiteral') add(first['value'] as string, false, node);
        // A package loaded on first use through createRequire is a value import too (its layer still owns it).
        if (callee.type === 'Identifier' && callee['name'] === 'require' && first?.type === 'StringLiteral')
          add(first['value'] as string, false, node);
        break;
      }
      case 'Identifier':
        if (node['name'] === 'process' && isProcessUse(parent, key)) processLines.push(node.loc?.start.line ?? 0);
        return;
      default:
        break;
    }
    for (const [childKey, child] of Object.entries(node)) {
      if (
        childKey === 'loc' ||
        childKey === 'leadingComments' ||
        childKey === 'trailingComments' ||
        childKey === 'innerComments'
      )
        continue;
      if (Array.isArray(child)) for (const item of child) isNode(item) && visit(item, node, childKey);
      else if (isNode(child)) visit(child, node, childKey);
    }
  };
  visit(ast.program as unknown as Node, null, '');
  return { imports, processLines };
}

/** An identifier `process` that refers to the variable: not a property name, an object key or a type. */
function isProcessUse(parent: Node | null, key: string): boolean {
  if (parent === null) return true;
  if (
    (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
    key === 'property' &&
    parent['computed'] !== true
  )
    return false;
  if (
    (parent.type === 'ObjectProperty' ||
      parent.type === 'ObjectMethod' ||
      parent.type === 'ClassMethod' ||
      parent.type === 'ClassProperty') &&
    key === 'key' &&
    parent['computed'] !== true
  )
    return false;
  if (
    parent.type.startsWith('TS') &&
    parent.type !== 'TSNonNullExpression' &&
    parent.type !== 'TSAsExpression' &&
    parent.type !== 'TSSatisfiesExpression'
  )
    return false;
  return true;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** A tree to check: its src/ folder, the top-level bench/ beside it, and folders that must not import bench/. */
export interface ArchitectureTree {
  readonly src: string;
  /** bench/: the self-benchmarks, outside src/; may import any layer and the test servers. */
  readonly bench: string;
  /** Folders outside the layering (the test helpers) checked only for importing bench/. */
  readonly others?: readonly string[];
}

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The layer of a file of `tree` ('bench' for bench/), or the first folder of its path from src/ when it is no layer. */
export function layerOf(tree: ArchitectureTree, file: string): string {
  if (inside(tree.bench, file)) return 'bench';
  const parts = relative(tree.src, file).split(sep);
  return parts.length === 1 ? (parts[0] as string).replace(/\.ts$/, '') : (parts[0] as string);
}

function isLayer(name: string): name is Layer {
  return (LAYERS as readonly string[]).includes(name);
}

/** The section folder and section of a file (a path relative to src/, with "/"), or null outside any section folder. */
export function sectionOf(relativePath: string): { folder: string; section: string } | null {
  for (const folder of SECTION_FOLDERS) {
    if (!relativePath.startsWith(`${folder}/`)) continue;
    const first = relativePath.slice(folder.length + 1).split('/')[0] as string;
    return { folder, section: first.replace(/\.ts$/, '') };
  }
  return null;
}

/** Every violation of DESIGN's rules in `tree`: src/'s layers, bench/ (imported by none) and the others' imports of it. */
export function checkArchitecture(tree: ArchitectureTree): Violation[] {
  const files = [...walk(tree.src), ...walk(tree.bench)];
  const facts = new Map(files.map((file) => [file, readFileFacts(file)]));
  const violations: Violation[] = [];
  const top = dirname(tree.src);
  // src/ files by their path in src/ (as DESIGN names layers), others by their path from the top.
  const rel = (file: string): string =>
    relative(inside(tree.src, file) ? tree.src : top, file)
      .split(sep)
      .join('/');
  for (const [file, { imports, processLines }] of facts) {
    const from = layerOf(tree, file);
    if (!isLayer(from)) {
      violations.push({ kind: 'unknown-layer', message: `${rel(file)}: "${from}" is no layer of DESIGN.md` });
      continue;
    }
    for (const entry of imports) {
      const where = `${rel(file)}:${entry.line}`;
      if (entry.relative) {
        const fromSection = sectionOf(rel(file));
        const toSection = inside(tree.src, entry.target) ? sectionOf(rel(entry.target)) : null;
        if (
          !entry.typeOnly &&
          fromSection !== null &&
          toSection !== null &&
          fromSection.folder === toSection.folder &&
          fromSection.section !== toSection.section
        )
          violations.push({
            kind: 'section',
            message: `${where} imports ${rel(entry.target)} (section ${fromSection.section} -> section ${toSection.section} of ${fromSection.folder}/)`,
          });
        const violation = relativeImportViolation(tree, from, entry, where, rel);
        if (violation) violations.push(violation);
        continue;
      }
      const owners = PACKAGE_LAYERS[entry.target];
      if (owners && !entry.typeOnly && !owners.includes(from)) {
        violations.push({
          kind: 'package',
          message: `${where} imports ${entry.target}, which belongs to ${owners.join(', ')}`,
        });
      }
    }
    if (!PROCESS_LAYERS.includes(from) && processLines.length > 0) {
      violations.push({
        kind: 'process',
        message: `${rel(file)}:${processLines.join(',')} uses process (only ${PROCESS_LAYERS.join(' and ')} may)`,
      });
    }
  }
  for (const dir of tree.others ?? []) {
    for (const file of walk(dir)) {
      for (const entry of readFileFacts(file).imports) {
        if (entry.relative && inside(tree.bench, entry.target))
          violations.push({
            kind: 'layer',
            message: `${rel(file)}:${entry.line} imports ${rel(entry.target)} (bench/ is imported by none)`,
          });
      }
    }
  }
  for (const cycle of valueCycles(facts))
    violations.push({ kind: 'cycle', message: `import cycle: ${cycle.map(rel).join(' -> ')}` });
  for (const file of files.filter((file) => inside(tree.src, file))) {
    const room = roomBeside(file);
    if (room !== null)
      violations.push({
        kind: 'room',
        message: `${rel(file)} sits beside ${rel(room)}/: a feature with a folder keeps its parts in it`,
      });
  }
  return violations;
}

/**
 * The house rule (docs/architecture.md): a feature past about 300 lines is a folder, and then all of it. A
 * file `<name>.ts` or `<name>-<part>.ts` beside a folder `<name>/` is a part left outside its feature's
 * folder (workload/dataset-source.ts beside workload/dataset/); returns that folder, or null.
 */
function roomBeside(file: string): string | null {
  const name = file.slice(dirname(file).length + 1).replace(/\.ts$/, '');
  for (const folder of readdirSync(dirname(file))) {
    const path = join(dirname(file), folder);
    if (!statSync(path).isDirectory()) continue;
    if (name === folder || name.startsWith(`${folder}-`)) return path;
  }
  return null;
}

/** The violation of one relative import of a file in layer `from`, if any. */
function relativeImportViolation(
  tree: ArchitectureTree,
  from: Layer,
  entry: ImportRecord,
  where: string,
  rel: (file: string) => string,
): Violation | null {
  const to = inside(tree.bench, entry.target)
    ? 'bench'
    : inside(tree.src, entry.target)
      ? layerOf(tree, entry.target)
      : null;
  // bench/ may import the test servers (outside src/); nothing in src/ may import outside src/.
  if (to === null)
    return from === 'bench'
      ? null
      : { kind: 'unknown-layer', message: `${where} imports ${rel(entry.target)}: outside src/ is no layer` };
  if (to === from) return null;
  if (!isLayer(to))
    return { kind: 'unknown-layer', message: `${where} imports ${rel(entry.target)}: "${to}" is no layer` };
  if (to === 'bench')
    return { kind: 'layer', message: `${where} imports ${rel(entry.target)} (bench/ is imported by none)` };
  if (!entry.typeOnly && !VALUE_EDGES[from].includes(to))
    return { kind: 'layer', message: `${where} imports ${rel(entry.target)} (${from} -> ${to})` };
  if (entry.typeOnly && !typeImportAllowed(from, to))
    return {
      kind: 'type-layer',
      message: `${where} imports types from ${rel(entry.target)} (${from} -> ${to}, upward or across)`,
    };
  return null;
}

/** Cycles among value imports between files (Tarjan's strongly connected components); type-only imports vanish at run time. */
function valueCycles(facts: ReadonlyMap<string, FileFacts>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, { imports }] of facts) {
    edges.set(
      file,
      imports.filter((i) => i.relative && !i.typeOnly && facts.has(i.target)).map((i) => i.target),
    );
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    const selfLoop = (edges.get(file) ?? []).includes(file);
    if (component.length > 1 || selfLoop) cycles.push([...component.reverse(), component[0] as string]);
  };
  for (const file of edges.keys()) if (!index.has(file)) connect(file);
  return cycles;
}
