// The request validators' one rewrite of a schema: every optional member also accepts null, as the
// providers read a null as "not set" (codegen/nullable-optionals.ts).
import { describe, expect, it } from 'vitest';
import { nullableOptionals } from '../../codegen/nullable-optionals.ts';

describe('nullableOptionals', () => {
  const schema = {
    type: 'object',
    required: ['model'],
    properties: {
      model: { type: 'string' },
      temperature: { type: 'number' },
      stop: { type: ['string', 'array'] },
      effort: { enum: ['low', 'high'] },
      tool_choice: { $ref: '#/$defs/ToolChoice' },
      already: { type: ['integer', 'null'] },
    },
    allOf: [{ if: { properties: { type: { const: 'text' } } }, then: { properties: { text: { type: 'string' } } } }],
  };

  it('lets each optional member be null, in the form its schema allows, and leaves required ones alone', () => {
    const out = nullableOptionals(schema) as typeof schema;
    expect(out.properties).toEqual({
      model: { type: 'string' },
      temperature: { type: ['number', 'null'] },
      stop: { type: ['string', 'array', 'null'] },
      effort: { enum: ['low', 'high', null] },
      tool_choice: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/ToolChoice' }] },
      already: { type: ['integer', 'null'] },
    });
  });

  it('relaxes branch shapes but not the if tests that select a branch', () => {
    const out = nullableOptionals(schema) as typeof schema;
    expect(out.allOf[0]?.if).toEqual({ properties: { type: { const: 'text' } } });
    expect(out.allOf[0]?.then.properties.text).toEqual({ type: ['string', 'null'] });
  });

  it('returns a copy, the schema it was given unchanged', () => {
    const before = structuredClone(schema);
    nullableOptionals(schema);
    expect(schema).toEqual(before);
  });
});
