// Walks test/fixtures/<protocol>/<scenario>/ for all six protocols and checks every pair it finds,
// both ways: wire -> IR must equal the reviewed *.ir.json, and IR -> wire must be schema-valid,
// warn of nothing and decode back to the same IR (minus what the wire format has no room for).
// One table row a protocol, with its quirks: support/golden-rows.ts.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../server/ir/index.ts';
import { PROTOCOL_IDS, codecFor, type ProtocolId } from '../../server/protocols/registry.ts';
import { REGENERATE, hasFile, readBytes, readJson, scenariosIn, writeJson, type ScenarioDir } from './support/fixtures.ts';
import { GOLDEN, type GoldenRow } from './support/golden-rows.ts';
import { decodeStreamOf } from './support/stream-fixtures.ts';
import { schemaErrors } from './support/validators.ts';

function expectGolden(row: GoldenRow, scenario: ScenarioDir, file: string, actual: unknown): void {
  if (REGENERATE && row.regenerates) writeJson(scenario, file, actual);
  else expect(actual).toEqual(readJson(scenario, file));
}

describe.each(PROTOCOL_IDS)('%s fixture inventory', (protocol) => {
  const row = GOLDEN[protocol];
  it('has every required scenario', () => {
    expect(scenariosIn(protocol).map((s) => s.name)).toEqual(expect.arrayContaining([...row.required]));
  });
  it.each(scenariosIn(protocol).map((s) => [s.name, s] as const))('%s has both halves of every pair', (_, scenario) => {
    for (const [wire, ir] of row.pairs) expect(hasFile(scenario, ir), `${ir} present iff ${wire} is`).toBe(hasFile(scenario, wire));
    for (const [file, needed] of row.implies ?? []) if (hasFile(scenario, file)) expect(hasFile(scenario, needed), `${needed} present with ${file}`).toBe(true);
  });
});

for (const protocol of PROTOCOL_IDS) {
  const row = GOLDEN[protocol];
  const codec = codecFor(protocol)!;
  const decodeStream = decodeStreamOf(protocol);
  for (const scenario of scenariosIn(protocol)) {
    describe(`${protocol}/${scenario.name}`, () => {
      row.extra?.(scenario);
      if (hasFile(scenario, 'request.wire.json')) requestChecks(protocol, row, scenario);
      if (hasFile(scenario, 'response.wire.json')) responseChecks(protocol, row, scenario);

      for (const form of row.streams) {
        if (!hasFile(scenario, form.file)) continue;
        const bytes = readBytes(scenario, form.file);

        it(`${form.file} follows the stream grammar`, () => {
          expect(form.fixtureProblems(bytes)).toEqual(form.expectedFixtureProblems?.(scenario) ?? []);
        });

        it(`the stream decoder gives stream.ir.json for ${form.file}`, () => {
          expectGolden(row, scenario, 'stream.ir.json', decodeStream([bytes]));
        });

        it(`the stream encoder output for stream.ir.json (as ${form.file}) is valid and decodes back to the same events`, () => {
          const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
          const { wire, warnings } = form.encode(events);
          expect(form.encodedProblems(wire)).toEqual([]);
          if (warnings !== undefined) expect(warnings).toEqual([]);
          expect(form.surviving(decodeStream([Buffer.from(wire)]))).toEqual(form.surviving(events));
        });
      }
    });
  }

  function requestChecks(protocol: ProtocolId, row: GoldenRow, scenario: ScenarioDir): void {
    const wire = readJson<Record<string, unknown>>(scenario, 'request.wire.json');

    it('request.wire.json is a valid request', () => {
      expect(schemaErrors(row.schemas.request, wire)).toEqual([]);
    });

    it('decodeRequest gives request.ir.json', () => {
      expectGolden(row, scenario, 'request.ir.json', codecFor(protocol)!.decodeRequest(structuredClone(wire), row.origin(scenario)));
    });

    const trip = row.requestRoundTrip;
    if (trip === undefined) return;
    it('encodeRequest(request.ir.json) is valid, warns of nothing, and decodes back to the same IR', () => {
      const ir = readJson<ChatRequest>(scenario, 'request.ir.json');
      const lane = trip.lane(ir);
      const { body, warnings } = codecFor(protocol)!.encodeRequest(ir, lane);
      expect(schemaErrors(row.schemas.request, body)).toEqual([]);
      expect(warnings).toEqual([]);
      trip.body?.(body);
      const decoded = codecFor(protocol)!.decodeRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, trip.backOrigin(ir, scenario));
      expect(trip.actual === undefined ? decoded : trip.actual(decoded)).toEqual(trip.expected(ir, lane));
    });
  }

  function responseChecks(protocol: ProtocolId, row: GoldenRow, scenario: ScenarioDir): void {
    const wire = readJson<Record<string, unknown>>(scenario, 'response.wire.json');

    it('response.wire.json is a valid response', () => {
      expect(schemaErrors(row.schemas.response, wire)).toEqual([]);
    });

    it('decodeResponse gives response.ir.json', () => {
      expectGolden(row, scenario, 'response.ir.json', codec.decodeResponse(structuredClone(wire)));
    });

    it('encodeResponse(response.ir.json) is valid, warns of nothing and decodes back to the same IR', () => {
      const ir = readJson<ChatResponse>(scenario, 'response.ir.json');
      const { body, warnings } = codecFor(protocol)!.encodeResponse(ir, { streamUsage: false });
      expect(schemaErrors(row.schemas.response, body)).toEqual([]);
      expect(warnings).toEqual([]);
      const decoded = codecFor(protocol)!.decodeResponse(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
      expect(row.survivingResponse(decoded)).toEqual(row.survivingResponse(ir));
    });
  }
}
