// The wire types' one rewrite of a schema: an if/then dispatch on a discriminant becomes the union
// it means, so a codec can name a branch's members (codegen/dispatch-unions.ts).
import { compile } from 'json-schema-to-typescript';
import { describe, expect, it } from 'vitest';
import { dispatchUnions } from '../../codegen/dispatch-unions.ts';

const branch = (type: string, then: object) => ({ if: { properties: { type: { const: type } }, required: ['type'] }, then });
const block = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  allOf: [
    branch('text', { required: ['text'], properties: { text: { type: 'string' } } }),
    branch('image', { required: ['url'], properties: { url: { type: 'string' } } }),
  ],
};

describe('dispatchUnions', () => {
  it('makes one member per branch, its discriminant fixed, plus the open rest', () => {
    const out = dispatchUnions({ title: 'Block', ...block }) as { title: string; anyOf: unknown[] };
    expect(out.title).toBe('Block');
    expect(out.anyOf).toHaveLength(3);
    expect(out.anyOf[0]).toMatchObject({
      allOf: [{ properties: { type: { type: 'string' } } }, { properties: { type: { enum: ['text'] } } }, { properties: { text: {} } }],
    });
    expect(out.anyOf[2]).toEqual({ type: 'object', required: ['type'], properties: { type: { type: 'string' } } });
  });

  it('leaves the rest out when the discriminant is an enum the branches cover', () => {
    const closed = { ...block, properties: { type: { enum: ['text', 'image'] } } };
    expect((dispatchUnions(closed) as { anyOf: unknown[] }).anyOf).toHaveLength(2);
  });

  it('compiles to a union whose branch members are typed', async () => {
    const ts = await compile(dispatchUnions({ title: 'Block', ...block }) as object, 'Block', {
      bannerComment: '',
      additionalProperties: false,
      format: false,
    });
    expect(ts).toMatch(/type: ['"]text['"]/);
    expect(ts).toContain('text: string');
    expect(ts).toContain('url: string');
  });

  it('leaves other allOf lists, and if/then/else, as they are', () => {
    const mixed = { ...block, allOf: [...block.allOf, { required: ['type'] }] };
    expect(dispatchUnions(mixed)).toEqual(mixed);
    const withElse = { ...block, allOf: [{ ...branch('text', {}), else: {} }] };
    expect(dispatchUnions(withElse)).toEqual(withElse);
  });

  it('returns a copy, the schema it was given unchanged', () => {
    const given = { title: 'Block', ...block, properties: { type: { type: 'string' }, meta: { type: 'object' } } };
    const before = structuredClone(given);
    dispatchUnions(given);
    expect(given).toEqual(before);
  });

  it('reads an object schema that names no members as any object', () => {
    expect(dispatchUnions({ type: 'object' })).toEqual({ type: 'object', additionalProperties: true });
    expect(dispatchUnions({ type: ['object', 'null'] })).toEqual({ type: ['object', 'null'], additionalProperties: true });
    expect(dispatchUnions({ type: 'object', properties: {} })).toEqual({ type: 'object', properties: {} });
  });
});
