// Real files in a fresh temp dir: configs go through the same loading path as an operator's.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError } from '../../server/config/config-error.ts';

export interface TempDir {
  readonly path: string;
  /** Writes `text` (an array is joined as lines) to `name` under the dir; returns the absolute path. */
  write(name: string, text: string | readonly string[]): string;
}

export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  return {
    path,
    write(name, text) {
      const file = join(path, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof text === 'string' ? text : `${text.join('\n')}\n`);
      return file;
    },
  };
}

/** Runs `load` and returns the ConfigError it must throw. */
export function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}
