import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Why the config file could not be written; the message names the file and the system's reason. */
export class ConfigWriteError extends Error {}

const REASONS: Record<string, string> = {
  EROFS: 'it is on a read-only file system (a mounted ConfigMap or a read-only volume): change the configuration at its source and reload',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted (an immutable file or directory?)',
  ENOENT: 'the directory does not exist',
  EISDIR: 'the path is a directory',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EXDEV: 'the temporary file and the config file are on different file systems',
  EBUSY: 'the file is busy (a file bind-mounted on its own cannot be replaced)',
};

function failure(file: string, step: string, error: unknown): ConfigWriteError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new ConfigWriteError(`cannot write the config file ${file} (${step}): ${REASONS[code] ?? 'failed'} (${code}); the running configuration is unchanged`);
}

/** Whether `writeConfigFile` could replace the file: its directory must take a new file. */
export async function configFileWritable(path: string): Promise<boolean> {
  try {
    const file = await realpath(path).catch(() => path);
    await access(dirname(file), constants.W_OK | constants.X_OK);
    return !(await stat(file).catch(() => undefined))?.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Replaces `file` with `text` atomically: a temporary file in the same directory (so the rename
 * stays on one file system), written and fsynced, renamed over the file, then the directory
 * fsynced so the rename itself survives a crash. A reader sees the old file or the new one, never
 * a part. The file keeps its permission bits; a symbolic link stays one (the file it points to is
 * replaced). Any failure leaves the old file and no temporary one.
 */
export async function writeConfigFile(path: string, text: string): Promise<void> {
  const file = await realpath(path).catch(() => path);
  const dir = dirname(file);
  const mode = (await stat(file).catch(() => undefined))?.mode ?? 0o600;
  const temporary = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let step = 'create a temporary file beside it';
  try {
    const handle = await open(temporary, 'wx', mode & 0o777);
    try {
      step = 'write the temporary file';
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    step = 'rename the temporary file over it';
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw failure(path, step, error);
  }
  // The rename is done; a directory that cannot be fsynced (some file systems) is no failure.
  const directory = await open(dir, 'r').catch(() => undefined);
  await directory?.sync().catch(() => undefined);
  await directory?.close();
}
