import { describe, expect, it } from 'vitest';
import { asciiComments } from '../../build/sea.ts';

// The single executable's bundles must be all ASCII: Node decodes a UTF-8 asset that is not into a
// string of two bytes a character, which each worker thread keeps as its script's source.
describe('asciiComments', () => {
  it('escapes what a comment keeps past ASCII, and nothing else changes', () => {
    const code = 'a();\n\t/*! formdata-polyfill. MIT License. Jimmy W\u00e4rting */\nb(); // \u00e9t\u00e9 \u{1f600}\nc("x");\n';
    const out = asciiComments(code, 'test.ts');
    expect(out).toBe('a();\n\t/*! formdata-polyfill. MIT License. Jimmy W\\u{e4}rting */\nb(); // \\u{e9}t\\u{e9} \\u{1f600}\nc("x");\n');
    expect(/[^\x00-\x7f]/.test(out)).toBe(false);
    expect(asciiComments('plain();\n', 'test.ts')).toBe('plain();\n');
  });

  it('stops the build on such a character in code', () => {
    expect(() => asciiComments('/* a */ const s = "W\u00e4rting";\n', 'test.ts')).toThrow(/outside a comment/);
    expect(() => asciiComments('// a\nconst s = "\u00e4";\n', 'test.ts')).toThrow(/outside a comment/);
  });
});
