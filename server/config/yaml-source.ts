import { LineCounter, parseDocument, isMap, isSeq, type Node } from 'yaml';
import { ConfigError, type ConfigProblem } from './config-error.ts';

/** A parsed YAML file that can say where any path inside it is (for error messages). */
export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  locate(path: readonly (string | number)[]): { line: number; column: number } | undefined;
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e): ConfigProblem => {
      const pos = e.linePos?.[0];
      return { file, path: '', message: `invalid YAML: ${e.message.split('\n')[0]}`, ...(pos && { line: pos.line, column: pos.col }) };
    }));
  }
  return {
    file,
    value: doc.toJS({ maxAliasCount: 100 }) ?? {},
    locate(path) {
      // Walk down as far as the path exists: a missing key is reported at its parent.
      let node: unknown = doc.contents;
      let found: Node | undefined = doc.contents ?? undefined;
      for (const segment of path) {
        if (isMap(node)) {
          const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === segment);
          if (pair === undefined) break;
          found = (pair.key as Node | null) ?? found;
          node = pair.value;
          if (isMap(node) || isSeq(node)) found = (pair.key as Node | null) ?? found;
          else if (node) found = node as Node;
        } else if (isSeq(node) && typeof segment === 'number') {
          node = node.items[segment];
          if (node) found = node as Node;
          else break;
        } else break;
      }
      const offset = found?.range?.[0];
      if (offset === undefined) return undefined;
      const pos = lineCounter.linePos(offset);
      return { line: pos.line, column: pos.col };
    },
  };
}
