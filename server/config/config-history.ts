import type { ReloadTrigger } from '../app/config-control.ts';

/** How many versions are kept; the oldest beyond this are forgotten. */
export const CONFIG_VERSIONS_KEPT = 100;

/** One applied configuration and what applied it. */
export interface ConfigVersionInfo {
  /** 1, 2, ... in the order applied; never reused, also once old versions are forgotten. */
  readonly version: number;
  /** The content hash the configuration ran as (load-config.ts). */
  readonly configVersion: string;
  readonly appliedAt: Date;
  readonly trigger: ReloadTrigger;
}

/** With its exact text (for rollback; shown masked). */
export interface ConfigVersion extends ConfigVersionInfo {
  readonly text: string;
}

export type NewConfigVersion = Omit<ConfigVersion, 'version'>;

/**
 * The configurations a gateway has applied. The newest is the one running: every start and every
 * applied change is recorded, a start on the newest's very content excepted (a restart adds no
 * version). Kept in the governance store when there is one (sqlite-config-history.ts, or
 * postgres-config-history.ts: one history for the whole fleet), so the history survives restarts;
 * else in memory for the life of the process. Asynchronous because the shared store is.
 */
export interface ConfigHistory {
  /** True: kept in the store, across restarts. */
  readonly stored: boolean;
  readonly kept: number;
  /** Adds a version and returns it; the newest itself when it has the same text and config_version. */
  record(entry: NewConfigVersion): Promise<ConfigVersion>;
  /** Newest first, without the texts (up to `kept` of them, each as large as a config file). */
  list(): Promise<readonly ConfigVersionInfo[]>;
  get(version: number): Promise<ConfigVersion | undefined>;
}

/** A stored version as a database row gives it (PostgreSQL's bigints arrive as strings, SQLite's as numbers). */
export interface ConfigVersionInfoRow {
  version: number | string;
  config_version: string;
  applied_at: number | string;
  trigger: string;
}

export interface ConfigVersionRow extends ConfigVersionInfoRow {
  text: string;
}

export const configVersionInfoOfRow = (row: ConfigVersionInfoRow): ConfigVersionInfo => ({
  version: Number(row.version),
  configVersion: row.config_version,
  appliedAt: new Date(Number(row.applied_at)),
  trigger: row.trigger as ReloadTrigger,
});

export const configVersionOfRow = (row: ConfigVersionRow): ConfigVersion => ({ ...configVersionInfoOfRow(row), text: row.text });

/** Whether `entry` is the same configuration as `newest` (recording it again would add nothing). */
export function sameConfiguration(newest: ConfigVersion | undefined, entry: NewConfigVersion): newest is ConfigVersion {
  return newest !== undefined && newest.configVersion === entry.configVersion && newest.text === entry.text;
}

/** The history without a store: this process's versions only, from 1. */
export function memoryConfigHistory(kept = CONFIG_VERSIONS_KEPT): ConfigHistory {
  const versions: ConfigVersion[] = []; // oldest first
  let next = 1;
  return {
    stored: false,
    kept,
    async record(entry) {
      const newest = versions.at(-1);
      if (sameConfiguration(newest, entry)) return newest;
      const version: ConfigVersion = { ...entry, version: next++ };
      versions.push(version);
      if (versions.length > kept) versions.splice(0, versions.length - kept);
      return version;
    },
    list: async () => versions.toReversed().map(({ text: _text, ...info }) => info),
    get: async (version) => versions.find((v) => v.version === version),
  };
}
