import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { components } from '../../generated/admin-api.ts';
import type { ConfigControl, ReloadOutcome } from '../app/config-control.ts';
import type { ConfigHistory, ConfigVersion, ConfigVersionInfo } from '../config/config-history.ts';
import { EMBEDDED_DEFAULT_SOURCE } from '../config/embedded-default.ts';
import { maskConfigText, secretsOf } from '../config/masked-config.ts';
import { ConfigWriteError, configFileWritable, writeConfigFile } from '../config/write-config-file.ts';
import type { Logger } from '../shared/logger.ts';
import { errorReply, type OperationReply } from './reply.ts';

type VersionEntry = components['schemas']['ConfigVersionEntry'];
type Applied = Extract<ReloadOutcome, { applied: true }>;

/** Past this, the two texts of a diff are too far apart to compare in an admin answer's time. */
const DIFF_TIMEOUT_MS = 2000;

export interface ConfigOperationsOptions {
  readonly control: ConfigControl;
  readonly history: ConfigHistory;
  readonly log: Logger;
}

/**
 * The configuration operations of the admin plane: the running configuration (masked), reload,
 * validate, apply (file written, then applied), the version history, diff and rollback. Changes
 * that write the file run one at a time, so the file always holds the configuration last applied.
 */
export function configOperations({ control, history, log }: ConfigOperationsOptions) {
  const recordNow = async (
    config: { configVersion: string; loadedAt: Date },
    text: string,
    trigger: ConfigVersion['trigger'],
  ): Promise<ConfigVersion | undefined> => {
    try {
      return await history.record({ configVersion: config.configVersion, appliedAt: config.loadedAt, trigger, text });
    } catch (error) {
      // A store that cannot be written loses the history entry, never the change itself.
      log.error({ err: error, trigger }, 'the configuration version could not be recorded');
      return undefined;
    }
  };
  // Recordings run in the order the changes were applied (the store's writes are asynchronous).
  let recording: Promise<ConfigVersion | undefined> = recordNow(control.current(), control.currentText(), 'start');
  const record = (config: { configVersion: string; loadedAt: Date }, text: string, trigger: ConfigVersion['trigger']) => {
    recording = recording.then(() => recordNow(config, text, trigger));
    return recording;
  };
  control.onApplied((outcome, trigger) => {
    if (!outcome.unchanged) void record(outcome.config, outcome.text, trigger);
  });

  let queue: Promise<unknown> = Promise.resolve();
  /** Runs file-writing changes one after another. */
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  /** The history as the store has it once every recording under way has landed. */
  const versionsNow = async () => {
    await recording;
    return history.list();
  };
  const newestVersion = async (): Promise<number> => (await versionsNow())[0]?.version ?? 1;
  const entry = (version: ConfigVersionInfo, newest: number): VersionEntry => ({
    version: version.version,
    config_version: version.configVersion,
    applied_at: version.appliedAt.toISOString(),
    trigger: version.trigger,
    current: version.version === newest,
  });
  const masked = (text: string) => maskConfigText(text, secretsOf(control.current()));
  const appliedReply = async (outcome: Applied, trigger: ConfigVersion['trigger']) => {
    // The listener has normally recorded it already; recording again returns that version.
    const version = (await record(outcome.config, outcome.text, trigger)) ?? (await history.list().catch(() => []))[0];
    const newest = await history.list().then(
      (v) => v[0]?.version ?? 1,
      () => 1,
    );
    const fallback: VersionEntry = {
      version: newest,
      config_version: outcome.config.configVersion,
      applied_at: outcome.config.loadedAt.toISOString(),
      trigger,
      current: true,
    };
    return {
      status: 200 as const,
      body: {
        unchanged: outcome.unchanged,
        config_version: outcome.config.configVersion,
        previous_config_version: outcome.previous.configVersion,
        version: version === undefined ? fallback : entry(version, newest),
      },
    };
  };
  const refused = (problems: readonly string[]) => ({
    status: 422 as const,
    body: {
      error: {
        code: 'config_invalid',
        message: `the configuration was refused (${problems.length} problem${problems.length === 1 ? '' : 's'}); the running one keeps serving: ${problems.join('; ')}`,
        problems: [...problems],
      },
    },
  });

  /** Validate, write the file, apply; the file is put back when the apply is refused after all. */
  const writeAndApply = (text: string, trigger: 'apply' | 'rollback') =>
    serialized(async () => {
      const file = control.current().source;
      if (file === EMBEDDED_DEFAULT_SOURCE) {
        const message = 'the gateway runs the embedded default configuration, with no file to write: start it with --config FILE to change its configuration';
        control.refuse(trigger, [message]); // counted and logged as a refused change, like a reload's
        return errorReply(409, 'no_config_file', message);
      }
      const problems = await control.validateText(text);
      if (problems.length > 0) {
        // Counted and said as a refused reload is (the file was not touched, nothing changed).
        control.refuse(trigger, problems);
        return refused(problems);
      }
      const previousText = control.currentText();
      try {
        await writeConfigFile(file, text);
      } catch (error) {
        if (!(error instanceof ConfigWriteError)) throw error;
        control.refuse(trigger, [error.message]);
        return errorReply(409, 'config_not_writable', error.message);
      }
      const outcome = await control.applyText(text, trigger);
      if (!outcome.applied) {
        // Valid a moment ago, refused now (a secret file changed in between): the file goes back.
        await writeConfigFile(file, previousText).catch((error: unknown) =>
          log.error({ err: error, file }, 'the config file could not be restored after a refused apply'),
        );
        return refused(outcome.problems); // counted by the control, which refused it
      }
      log.info({ file, trigger, configVersion: outcome.config.configVersion, unchanged: outcome.unchanged }, 'config file written and applied');
      return appliedReply(outcome, trigger);
    });

  return {
    async getApiV1AdminConfig(): Promise<OperationReply<'/api/v1/admin/config', 'get'>> {
      const config = control.current();
      const embedded = config.source === EMBEDDED_DEFAULT_SOURCE;
      return {
        status: 200,
        body: {
          version: await newestVersion(),
          config_version: config.configVersion,
          loaded_at: config.loadedAt.toISOString(),
          source: config.source,
          writable: !embedded && (await configFileWritable(config.source)),
          yaml: masked(control.currentText()),
        },
      };
    },

    async postApiV1AdminConfigReload(): Promise<OperationReply<'/api/v1/admin/config/reload', 'post'>> {
      const outcome = await control.reloadFromFile('reload');
      return outcome.applied ? await appliedReply(outcome, 'reload') : refused(outcome.problems);
    },

    async postApiV1AdminConfigValidate(text: string): Promise<OperationReply<'/api/v1/admin/config/validate', 'post'>> {
      const problems = await control.validateText(text);
      return { status: 200, body: { valid: problems.length === 0, problems: [...problems] } };
    },

    postApiV1AdminConfigApply: (text: string): Promise<OperationReply<'/api/v1/admin/config/apply', 'post'>> => writeAndApply(text, 'apply'),

    async getApiV1AdminConfigVersions(): Promise<OperationReply<'/api/v1/admin/config/versions', 'get'>> {
      const versions = await versionsNow();
      const newest = versions[0]?.version ?? 1;
      return { status: 200, body: { data: versions.map((v) => entry(v, newest)), stored: history.stored, kept: history.kept } };
    },

    async getApiV1AdminConfigVersionsV(v: number): Promise<OperationReply<'/api/v1/admin/config/versions/{v}', 'get'>> {
      const versions = await versionsNow();
      const version = await history.get(v);
      if (version === undefined) return errorReply(404, 'not_found', noSuchVersion(v, versions));
      return { status: 200, body: { ...entry(version, versions[0]?.version ?? 1), yaml: masked(version.text) } };
    },

    async getApiV1AdminConfigDiff(query: { from?: number; to?: number }): Promise<OperationReply<'/api/v1/admin/config/diff', 'get'>> {
      const versions = await versionsNow();
      const to = await history.get(query.to ?? versions[0]?.version ?? 1);
      if (to === undefined) return errorReply(404, 'not_found', noSuchVersion(query.to ?? 1, versions));
      const earlier = versions.find((v) => v.version < to.version);
      const from = query.from === undefined ? (earlier === undefined ? undefined : await history.get(earlier.version)) : await history.get(query.from);
      if (from === undefined) {
        return errorReply(
          404,
          'not_found',
          query.from === undefined
            ? `version ${to.version} is the oldest kept: there is nothing before it to compare with`
            : noSuchVersion(query.from, versions),
        );
      }
      const [before, after] = [masked(from.text), masked(to.text)];
      const patch =
        before === after
          ? ''
          : (createTwoFilesPatch(`v${from.version}`, `v${to.version}`, before, after, from.configVersion, to.configVersion, {
              context: 3,
              headerOptions: FILE_HEADERS_ONLY,
              timeout: DIFF_TIMEOUT_MS,
            }) ??
            `the two versions differ too much to be compared within ${DIFF_TIMEOUT_MS} ms: GET /api/v1/admin/config/versions/${from.version} and /${to.version}\n`);
      const newest = versions[0]?.version ?? 1;
      return { status: 200, body: { from: entry(from, newest), to: entry(to, newest), diff: patch } };
    },

    async postApiV1AdminConfigRollback(body: { version?: number } | undefined): Promise<OperationReply<'/api/v1/admin/config/rollback', 'post'>> {
      let target: ConfigVersion | undefined;
      const versions = await versionsNow();
      if (body?.version === undefined) {
        const previous = versions[1];
        target = previous === undefined ? undefined : await history.get(previous.version);
        if (target === undefined) return errorReply(409, 'no_previous_version', 'there is no earlier version to roll back to: only the running one is kept');
      } else {
        target = await history.get(body.version);
        if (target === undefined) return errorReply(404, 'not_found', noSuchVersion(body.version, versions));
      }
      return writeAndApply(target.text, 'rollback');
    },
  };
}

function noSuchVersion(v: number, versions: readonly ConfigVersionInfo[]): string {
  const range = versions.length === 0 ? 'none are kept' : `kept: ${versions.at(-1)!.version} to ${versions[0]!.version}`;
  return `no configuration version ${v} (${range})`;
}
