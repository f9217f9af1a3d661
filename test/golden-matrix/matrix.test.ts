// Walks test/fixtures/matrix/<scenario>/ and checks, for each side (request, response) with an IR
// file, every protocol with a wire file and every ordered pair of them:
//   (a) schema: the wire file is valid against spec/protocols/<id>/;
//   (b) cross:  decode(A's file), encode for B  ==  B's file, and B warns about nothing but what A's rules list;
//   (c) decode: decode(A's file)  ==  the scenario's IR, modulo A's named rules (normalisations.ts);
//   (d) round:  encode for A of decode(A's file)  ==  A's file;
//   (e) encode: encode for A of the scenario's IR  ==  A's file, with no warnings.
// The one allowance in (b) besides the named rules is the pipeline's own step between decode and
// encode (withPipelineIdentity). A check that meets a known codec bug (KNOWN_BUGS) is `it.fails`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatRequest, ChatResponse, ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import type { TranslationWarning } from '../../server/protocols/codec.ts';
import {
  LANE,
  ROOT,
  SIDES,
  VALIDATORS,
  codecOf,
  hasFile,
  irFile,
  knownFileNames,
  matrixScenarios,
  originFor,
  protocolsWith,
  readJson,
  schemaErrors,
  wireFile,
  type Json,
  type MatrixScenario,
  type Side,
} from './matrix-fixtures.ts';
import {
  ENCODE_TIME,
  KNOWN_BUGS,
  REQUEST_NORMALISATIONS,
  RESPONSE_NORMALISATIONS,
  applicable,
  expectedCrossWarnings,
  expectedCrossWire,
  expectedDecode,
  knownBug,
  withPipelineIdentity,
} from './normalisations.ts';

type Ir = ChatRequest | ChatResponse;

/** Scenarios each side must hold: a deleted folder or file must fail the suite, not shrink it. */
const REQUIRED: Readonly<Record<Side, readonly string[]>> = {
  request: ['text-basic', 'system-and-multi-turn', 'tools-and-results', 'image-base64', 'stop-and-limits'],
  // text answer with usage, tool-call answer, max-tokens (length) answer
  response: ['text-basic', 'tools-and-results', 'stop-and-limits'],
};

function decode(side: Side, protocol: ProtocolId, wire: Json): Ir {
  const codec = codecOf(protocol);
  return side === 'request' ? codec.decodeRequest(structuredClone(wire), originFor(protocol)) : codec.decodeResponse(structuredClone(wire));
}

interface Encoded {
  readonly body: Json;
  readonly warningPaths: string[];
}

/** The body as it goes on the wire (serialised: undefined members vanish), and the warnings' paths. */
function encode(side: Side, protocol: ProtocolId, ir: Ir): Encoded {
  const codec = codecOf(protocol);
  const { body, warnings } =
    side === 'request' ? codec.encodeRequest(ir as ChatRequest, LANE) : codec.encodeResponse(ir as ChatResponse, { streamUsage: false });
  return { body: JSON.parse(JSON.stringify(body)) as Json, warningPaths: warnings.map((w: TranslationWarning) => w.path) };
}

/**
 * `it`, or for a known codec bug (KNOWN_BUGS) `it.fails` naming it, plus a check that the output
 * differs from the file by that bug and nothing else. `body` compares with the expected wire file
 * after `adjust`.
 */
function check(scenario: MatrixScenario, side: Side, encoder: ProtocolId, title: string, body: (adjust: (wire: Json) => Json) => void): void {
  const bug = knownBug(scenario.name, side, encoder);
  if (bug === undefined) {
    it(title, () => body((wire) => wire));
    return;
  }
  it.fails(`${title} [known bug ${bug.name}: ${bug.file}]`, () => body((wire) => wire));
  it(`${title} differs from the file only by known bug ${bug.name}`, () => body(bug.deviation));
}

beforeAll(() => {
  // A response whose protocol has no creation time is stamped with the encoder's clock (rule no-created).
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(ENCODE_TIME * 1000);
});

afterAll(() => {
  vi.useRealTimers();
});

describe('matrix inventory', () => {
  const scenarios = matrixScenarios();

  for (const side of SIDES) {
    it(`has every required ${side} scenario`, () => {
      const present = scenarios.filter((s) => hasFile(s, irFile(side))).map((s) => s.name);
      expect(present).toEqual(expect.arrayContaining([...REQUIRED[side]]));
    });
  }

  for (const scenario of scenarios) {
    it(`${scenario.name} holds only matrix files, and wire files only beside their IR file`, () => {
      const known = knownFileNames();
      expect(readdirSync(scenario.dir).filter((n) => !known.has(n))).toEqual([]);
      for (const side of SIDES) {
        if (!hasFile(scenario, irFile(side))) expect(protocolsWith(scenario, side), `${side} wire files without ${irFile(side)}`).toEqual([]);
        else expect(protocolsWith(scenario, side).length, `${side}: at least two protocols, or there is no pair`).toBeGreaterThanOrEqual(2);
      }
    });
  }

  it('every protocol left out of a scenario is listed in the README with its reason, and nothing else is', () => {
    const missing: string[] = [];
    for (const scenario of scenarios) {
      for (const side of SIDES) {
        if (!hasFile(scenario, irFile(side))) continue;
        const present = new Set(protocolsWith(scenario, side));
        for (const p of PROTOCOL_IDS) {
          if (!present.has(p)) missing.push(`${scenario.name} ${side} ${p}`);
        }
      }
    }
    expect(readmeLeftOut().sort()).toEqual(missing.sort());
  });

  it('every normalisation rule and every known bug is needed by some fixture', () => {
    const used = new Set<string>();
    for (const scenario of scenarios) {
      for (const side of SIDES) {
        if (!hasFile(scenario, irFile(side))) continue;
        const ir = readJson<Ir>(scenario, irFile(side));
        for (const p of protocolsWith(scenario, side)) for (const n of applicable(side, p, ir)) used.add(`${side}:${n.name}`);
      }
    }
    const declared = [...REQUEST_NORMALISATIONS.map((n) => `request:${n.name}`), ...RESPONSE_NORMALISATIONS.map((n) => `response:${n.name}`)];
    expect(
      declared.filter((n) => !used.has(n)),
      'rules no fixture needs',
    ).toEqual([]);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(
      declared.filter((n) => !readme.includes(`| ${n.split(':')[0]} | \`${n.split(':')[1]}\` |`)),
      'rules missing from the README table',
    ).toEqual([]);
    for (const bug of KNOWN_BUGS) {
      const scenario = scenarios.find((s) => s.name === bug.scenario);
      expect(scenario !== undefined && hasFile(scenario, wireFile(bug.encoder, bug.side)), `${bug.name} names a wire file that exists`).toBe(true);
    }
  });
});

for (const scenario of matrixScenarios()) {
  for (const side of SIDES) {
    if (!hasFile(scenario, irFile(side))) continue;
    const protocols = protocolsWith(scenario, side);

    describe(`${scenario.name} ${side}`, () => {
      describe('(a) every wire file is valid against its protocol schema', () => {
        for (const p of protocols) {
          it(p, () => {
            expect(schemaErrors(VALIDATORS[p][side], readJson(scenario, wireFile(p, side)))).toEqual([]);
          });
        }
      });

      describe(`(c) decode gives ${irFile(side)}, modulo the named rules`, () => {
        for (const p of protocols) {
          const ir = readJson<Ir>(scenario, irFile(side));
          const rules = applicable(side, p, ir).map((n) => n.name);
          it(`${p}${rules.length > 0 ? ` (rules: ${rules.join(', ')})` : ''}`, () => {
            const decoded = decode(side, p, readJson(scenario, wireFile(p, side)));
            expect(decoded).toStrictEqual(expectedDecode(side, p, readJson<Ir>(scenario, irFile(side))));
          });
        }
      });

      describe(`(e) encoding ${irFile(side)} gives each wire file, with no warnings`, () => {
        for (const p of protocols) {
          check(scenario, side, p, p, (adjust) => {
            const { body, warningPaths } = encode(side, p, readJson<Ir>(scenario, irFile(side)));
            expect(body).toStrictEqual(adjust(readJson(scenario, wireFile(p, side))));
            expect(warningPaths).toEqual([]);
          });
        }
      });

      describe('(d) round trip: encode(decode(A)) in A gives A', () => {
        for (const p of protocols) {
          check(scenario, side, p, p, (adjust) => {
            const wire = readJson(scenario, wireFile(p, side));
            const { body, warningPaths } = encode(side, p, decode(side, p, wire));
            expect(body).toStrictEqual(adjust(wire));
            expect(warningPaths).toEqual([]);
          });
        }
      });

      describe('(b) cross: decode(A), encode for B gives B', () => {
        for (const a of protocols) {
          for (const b of protocols) {
            if (a === b) continue;
            const ir = readJson<Ir>(scenario, irFile(side));
            const rules = applicable(side, a, ir)
              .filter((n) => n.onWire?.[b] !== undefined || n.warnings?.[b] !== undefined)
              .map((n) => n.name);
            check(scenario, side, b, `${a} -> ${b}${rules.length > 0 ? ` (rules: ${rules.join(', ')})` : ''}`, (adjust) => {
              const scenarioIr = readJson<Ir>(scenario, irFile(side));
              let decoded = decode(side, a, readJson(scenario, wireFile(a, side)));
              if (side === 'response') decoded = withPipelineIdentity(decoded as ChatResponse, scenarioIr as ChatResponse);
              const { body, warningPaths } = encode(side, b, decoded);
              expect(body).toStrictEqual(adjust(expectedCrossWire(side, a, b, scenarioIr, readJson(scenario, wireFile(b, side)))));
              expect(warningPaths).toEqual(expectedCrossWarnings(side, a, b, scenarioIr));
            });
          }
        }
      });
    });
  }
}

/** Rows `| <scenario> | <side> | <protocol> | <why> |` of the README's "Left out" table. */
function readmeLeftOut(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Left out'));
  if (section === undefined) throw new Error('README.md has no "## Left out" section');
  const rows: string[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // ['', scenario, side, protocol, why, '']
    if (cells.length < 6 || cells[1] === 'scenario' || /^-+$/.test(cells[1] ?? '')) continue;
    const [, name, side, protocol, why] = cells;
    if (name === undefined || side === undefined || protocol === undefined || why === undefined || why === '') continue;
    rows.push(`${name.replace(/`/g, '')} ${side} ${protocol.replace(/`/g, '')}`);
  }
  return rows;
}
