import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';
import validateCatalog from '../../generated/validators/catalog.js';
import type { Catalog } from '../../generated/catalog-types.ts';
import { ConfigError } from './config-error.ts';
import { schemaProblems } from './schema-problems.ts';
import { parseYamlSource, type YamlSource } from './yaml-source.ts';

/** The shipped catalog: a file in the checkout, an embedded asset of that name in the single executable (make binary). */
const SHIPPED_CATALOG = 'catalog/providers.yaml';

/** Nested maps of a provider that merge key by key rather than being replaced whole. */
const MERGED_MAPS = new Set(['headers', 'query', 'error_map', 'models']);

/**
 * The shipped catalog with the operator's providers.yaml merged over it, provider by provider and
 * field by field: `openai: { base_url: https://proxy.internal/v1 }` changes only the base URL.
 * The result is validated as a whole, so a partial override is fine and a typo is not.
 */
export function loadCatalog(operatorFile: string | undefined): Catalog {
  const shipped = shippedCatalog();
  const overlay = operatorFile === undefined ? undefined : readOperatorCatalog(operatorFile);
  const merged = overlay === undefined ? shipped.value : mergeCatalogs(shipped.value, overlay.value);
  if (!validateCatalog(merged)) {
    throw new ConfigError(schemaProblems(overlay ?? shipped, validateCatalog.errors));
  }
  return merged as Catalog;
}

/**
 * The shipped catalog, parsed once per thread: it cannot change while the process runs, and a
 * reload (which loads the configuration again, catalog included) should not pay for it each time.
 * Nothing changes the parsed value (merging copies what it overrides).
 */
let shipped: YamlSource | undefined;
function shippedCatalog(): YamlSource {
  if (shipped !== undefined) return shipped;
  const text = isSea() ? getAsset(SHIPPED_CATALOG, 'utf8') : readFileSync(new URL(`../../${SHIPPED_CATALOG}`, import.meta.url), 'utf8');
  return (shipped = parseYamlSource(text, SHIPPED_CATALOG));
}

function readOperatorCatalog(file: string): YamlSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([{ file, path: '', message: `cannot read the catalog (${(e as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  const source = parseYamlSource(text, file);
  if (!isRecord(source.value)) throw new ConfigError([{ file, path: '', message: 'a catalog is a map of provider names' }]);
  return source;
}

export function mergeCatalogs(base: unknown, overlay: unknown): unknown {
  if (!isRecord(base) || !isRecord(overlay)) return overlay;
  const out: Record<string, unknown> = { ...base };
  for (const [name, provider] of Object.entries(overlay)) {
    const current = out[name];
    if (!isRecord(current) || !isRecord(provider)) {
      out[name] = provider;
      continue;
    }
    const mergedProvider: Record<string, unknown> = { ...current };
    for (const [field, value] of Object.entries(provider)) {
      const existing = mergedProvider[field];
      mergedProvider[field] = MERGED_MAPS.has(field) && isRecord(existing) && isRecord(value) ? { ...existing, ...value } : value;
    }
    out[name] = mergedProvider;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
