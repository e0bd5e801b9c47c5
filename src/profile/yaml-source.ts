/**
 * The profile text as a YAML Document with a LineCounter, so that any field path can be turned back into
 * the line and column where the user wrote it (error messages point at the exact key or value).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import type { IssuePath } from './profile-issue.js';

export interface YamlSource {
  readonly name: string;
  /** The document as plain data (undefined when the text has YAML syntax errors). */
  readonly data: unknown;
  /** YAML syntax errors, already placed: "line:col: message". */
  readonly syntaxErrors: readonly { readonly line: number; readonly col: number; readonly message: string }[];
  /** Line and column (1-based) of the field at `path`, or of its nearest ancestor that exists. */
  locate(path: IssuePath, atKey?: boolean): { line: number; col: number };
}

export function parseYamlSource(text: string, name: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxErrors = doc.errors.map((error) => {
    const pos = lineCounter.linePos(error.pos[0]);
    return { line: pos.line, col: pos.col, message: error.message.split('\n')[0]! };
  });
  let data: unknown;
  try {
    data = syntaxErrors.length === 0 ? doc.toJS({ maxAliasCount: 100 }) : undefined;
  } catch (error) {
    // yaml throws, rather than reports, when aliases expand too far (a "billion laughs" document).
    syntaxErrors.push({ line: 1, col: 1, message: (error as Error).message.split('\n')[0]! });
  }
  const at = (offset: number | undefined): { line: number; col: number } => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, col: pos.col };
  };
  return {
    name,
    data,
    syntaxErrors,
    locate(path, atKey = false) {
      let node: unknown = doc.contents;
      let keyOffset: number | undefined = (doc.contents as Node | null)?.range?.[0];
      for (const segment of path) {
        if (isMap(node)) {
          const pair = node.items.find(
            (item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === String(segment),
          );
          if (!pair) return at(keyOffset);
          keyOffset = (pair.key as Node | null)?.range?.[0] ?? keyOffset;
          node = pair.value;
        } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
          node = node.items[segment];
          keyOffset = (node as Node | null)?.range?.[0] ?? keyOffset;
        } else {
          return at(keyOffset);
        }
      }
      if (atKey) return at(keyOffset);
      return at((node as Node | null)?.range?.[0] ?? keyOffset);
    },
  };
}
