// The config file replaced atomically: a rename over it, its mode kept, a symbolic link kept, and
// a failure that leaves the old file and no temporary file behind.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigWriteError, configFileWritable, writeConfigFile } from '../../server/config/write-config-file.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'gateway-write-config-'));

describe('writeConfigFile', () => {
  it('replaces the file by a rename (a new inode), keeps its mode, leaves nothing else', async () => {
    const d = dir();
    const file = join(d, 'config.yaml');
    writeFileSync(file, 'old: 1\n');
    chmodSync(file, 0o640);
    const before = statSync(file);
    await writeConfigFile(file, 'new: 2\n');
    expect(readFileSync(file, 'utf8')).toBe('new: 2\n');
    expect(statSync(file).ino).not.toBe(before.ino);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(d)).toEqual(['config.yaml']);
  });

  it('writes through a symbolic link: the link stays, the file it points to is replaced', async () => {
    const d = dir();
    mkdirSync(join(d, 'real'));
    writeFileSync(join(d, 'real', 'gateway.yaml'), 'old: 1\n');
    symlinkSync(join(d, 'real', 'gateway.yaml'), join(d, 'config.yaml'));
    await writeConfigFile(join(d, 'config.yaml'), 'new: 2\n');
    expect(lstatSync(join(d, 'config.yaml')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(d, 'config.yaml'))).toBe(join(d, 'real', 'gateway.yaml'));
    expect(readFileSync(join(d, 'real', 'gateway.yaml'), 'utf8')).toBe('new: 2\n');
    expect(readdirSync(join(d, 'real'))).toEqual(['gateway.yaml']);
  });

  it('fails at the rename when the path is a directory: the error says so, no temporary file is left', async () => {
    const d = dir();
    const path = join(d, 'config.yaml');
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'x');
    expect(await configFileWritable(path)).toBe(false);
    const error = await writeConfigFile(path, 'new: 2\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigWriteError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cannot write the config file ${path} \\(rename the temporary file over it\\): .+ \\((EISDIR|ENOTEMPTY|EEXIST)\\); the running configuration is unchanged$`,
      ),
    );
    expect(readdirSync(d)).toEqual(['config.yaml']);
    expect(readdirSync(path)).toEqual(['inside']);
  });

  it('fails to create the temporary file when the directory does not exist', async () => {
    const path = join(dir(), 'missing', 'config.yaml');
    expect(await configFileWritable(path)).toBe(false);
    await expect(writeConfigFile(path, 'x: 1\n')).rejects.toThrow(
      `cannot write the config file ${path} (create a temporary file beside it): the directory does not exist (ENOENT)`,
    );
  });
});
