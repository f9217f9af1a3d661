import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node } from 'yaml';
import { ConfigError, type ConfigProblem } from './config-error.ts';

/** A parsed YAML file that can say where any path inside it is (for error messages). */
export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  /** Where the value at `path` is (`where: 'key'`: where its key is, for an unknown key). */
  locate(path: readonly (string | number)[], where?: 'key' | 'value'): { line: number; column: number } | undefined;
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  // resolveKnownTags off: `!!binary`, `!!set` and `!!timestamp` stay plain strings, so the value is
  // JSON-shaped and the schema says what is wrong with it.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, resolveKnownTags: false });
  const at = (offset: number) => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e): ConfigProblem => {
        if (e.code === 'DUPLICATE_KEY') {
          const path = pathOfKeyAt(doc.contents, e.pos[0]);
          const key = path?.[path.length - 1];
          if (path !== undefined)
            return { file, path: path.join('.'), message: `duplicate key "${key}": each key may appear only once in a map`, ...at(e.pos[0]) };
        }
        return { file, path: '', message: `invalid YAML: ${e.message.split('\n')[0]}`, ...at(e.pos[0]) };
      }),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (e) {
    // An alias to an anchor that does not exist, or too many aliases (a "billion laughs" file).
    throw new ConfigError([{ file, path: '', message: `invalid YAML: ${(e as Error).message}` }]);
  }
  return {
    file,
    value,
    locate(path, where = 'value') {
      // Walk down as far as the path exists: a missing key is reported at its parent.
      let node: unknown = doc.contents;
      let found: Node | undefined = doc.contents ?? undefined;
      for (const [i, segment] of path.entries()) {
        if (isMap(node)) {
          // Keys compare as text: ajv paths are strings, and `429:` is a number key in YAML.
          const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
          if (pair === undefined) break;
          found = (pair.key as Node | null) ?? found;
          node = pair.value;
          if (isMap(node) || isSeq(node) || (where === 'key' && i === path.length - 1)) found = (pair.key as Node | null) ?? found;
          else if (node) found = node as Node;
        } else if (isSeq(node) && /^\d+$/.test(String(segment))) {
          node = node.items[Number(segment)];
          if (node) found = node as Node;
          else break;
        } else break;
      }
      const offset = found?.range?.[0];
      return offset === undefined ? undefined : at(offset);
    },
  };
}

/** The path of the map key that starts at `offset` (where the YAML parser reports a duplicate key). */
function pathOfKeyAt(node: unknown, offset: number, path: (string | number)[] = []): (string | number)[] | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const name = isScalar(key) ? String(key.value) : '?';
      if (key?.range?.[0] === offset) return [...path, name];
      const inner = pathOfKeyAt(pair.value, offset, [...path, name]);
      if (inner !== undefined) return inner;
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) {
      const inner = pathOfKeyAt(item, offset, [...path, i]);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}
