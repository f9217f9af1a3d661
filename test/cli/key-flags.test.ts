// The key field flags as commander parses them, without a gateway: labels are a plain map.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addKeyFlags, keyBody, type KeyFlags } from '../../cli/key-flags.ts';

const parsed = (mode: 'create' | 'update', args: string[]) => {
  const command = addKeyFlags(new Command(mode).exitOverride(), mode);
  command.parse(args, { from: 'user' });
  return keyBody(command.opts<KeyFlags>());
};

describe('--metadata', () => {
  it('takes labels named like members every object inherits (constructor, toString) as labels like any other', () => {
    expect(parsed('create', ['--metadata', 'a=1', '--metadata', 'constructor=2', '--metadata', 'toString=3'])).toEqual({
      metadata: { a: '1', constructor: '2', toString: '3' },
    });
  });

  it('refuses a label given twice, and none beside labels on update', () => {
    expect(() => parsed('create', ['--metadata', 'a=1', '--metadata', 'a=2'])).toThrow(/label "a" is given twice/);
    expect(() => parsed('update', ['--metadata', 'a=1', '--metadata', 'none'])).toThrow(/give it alone/);
    expect(parsed('update', ['--metadata', 'none'])).toEqual({ metadata: null });
  });
});
