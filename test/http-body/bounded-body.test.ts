// The one bounded body reader: each caller's past-the-limit behaviour, the memory hold, and the
// streamed-through form a multipart upload will use.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedChunks, readBoundedBody, readUpstreamBody } from '../../server/http-body/bounded-body.ts';
import type { Overrun } from '../../server/http-body/byte-budget.ts';

const chunks = (...sizes: number[]) => Readable.from(sizes.map((n, i) => Buffer.alloc(n, 97 + i)));
const refuse = { then: 'fail', error: (overrun: Overrun, limit: number) => new Error(`${overrun}@${limit}`) } as const;

/** A hold over a fixed room, recording what it was asked for. */
function room(bytes: number) {
  const asked: number[] = [];
  return {
    asked,
    growTo: (total: number) => {
      asked.push(total);
      return total <= bytes;
    },
  };
}

describe('readBoundedBody', () => {
  it('returns a body within the limit whole, in order', async () => {
    const { body, overLimit } = await readBoundedBody(chunks(3, 2), { limit: 5, past: refuse });
    expect(body.toString()).toBe('aaabb');
    expect(overLimit).toBe(false);
  });

  it('fail: rejects with the caller error at the first byte past the limit, and destroys the source', async () => {
    const source = chunks(3, 3, 3);
    await expect(readBoundedBody(source, { limit: 5, past: refuse })).rejects.toThrow('too_large@5');
    expect(source.destroyed).toBe(true);
  });

  it('fail: a declared length past the limit is refused before any byte is read', async () => {
    const source = chunks(1);
    await expect(readBoundedBody(source, { limit: 5, past: refuse, declaredLength: '6' })).rejects.toThrow('too_large@5');
    expect(source.readableDidRead).toBe(false);
  });

  it('fail: memory that does not fit is no_room, checked on the declared length, then as bytes arrive', async () => {
    const declared = room(4);
    await expect(readBoundedBody(chunks(3), { limit: 100, past: refuse, declaredLength: '10', hold: declared })).rejects.toThrow('no_room@100');
    expect(declared.asked).toEqual([10]);
    const undeclared = room(4);
    await expect(readBoundedBody(chunks(3, 3), { limit: 100, past: refuse, hold: undeclared })).rejects.toThrow('no_room@100');
    expect(undeclared.asked).toEqual([3, 6]);
  });

  it('fail: past the limit is too_large even when memory would not fit either', async () => {
    await expect(readBoundedBody(chunks(10), { limit: 5, past: refuse, hold: room(0) })).rejects.toThrow('too_large@5');
  });

  it('drain: says overLimit, keeps the source alive and reads the rest away', async () => {
    const source = chunks(3, 3, 3);
    const { body, overLimit } = await readBoundedBody(source, { limit: 5, past: { then: 'drain' } });
    expect(overLimit).toBe(true);
    expect(body.toString()).toBe('aaa');
    // Read to its end (not cut off), so a connection can carry the answer and the next request.
    await new Promise((resolve) => source.once('end', resolve));
    expect(source.readableEnded).toBe(true);
    expect(source.errored).toBeNull();
  });

  it('drain: a declared length past the limit answers at once', async () => {
    const { overLimit } = await readBoundedBody(chunks(1), { limit: 5, past: { then: 'drain' }, declaredLength: '6' });
    expect(overLimit).toBe(true);
  });

  it('truncate: keeps exactly the first limit bytes and destroys the rest', async () => {
    const source = chunks(3, 3, 3);
    const body = await readUpstreamBody(source, 5);
    expect(body.toString()).toBe('aaabb');
    expect(source.destroyed).toBe(true);
    expect((await readUpstreamBody(chunks(2, 2), 5)).toString()).toBe('aabb');
  });
});

describe('readBoundedBody: how a stream ends', () => {
  it('rejects with the error the stream fails with', async () => {
    const source = new Readable({ read() {} });
    const read = readBoundedBody(source, { limit: 100, past: refuse });
    source.push(Buffer.from('ab'));
    source.destroy(new Error('reset'));
    await expect(read).rejects.toThrow('reset');
  });

  it('rejects a stream closed before its end as a premature close', async () => {
    const source = new Readable({ read() {} });
    const read = readBoundedBody(source, { limit: 100, past: refuse });
    source.push(Buffer.from('ab'));
    source.destroy();
    await expect(read).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('a stream already failed, closed or ended before the read', async () => {
    const failed = new Readable({ read() {} });
    failed.on('error', () => {});
    failed.destroy(new Error('gone'));
    await expect(readBoundedBody(failed, { limit: 100, past: refuse })).rejects.toThrow('gone');
    const closed = new Readable({ read() {} });
    closed.destroy();
    await expect(readBoundedBody(closed, { limit: 100, past: refuse })).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const ended = chunks(2);
    ended.resume();
    await new Promise((resolve) => ended.once('end', resolve));
    expect((await readBoundedBody(ended, { limit: 100, past: refuse })).body.length).toBe(0);
  });

  it('a body arriving in many small chunks is read whole', async () => {
    const { body } = await readBoundedBody(chunks(...Array.from({ length: 200 }, () => 1)), { limit: 1000, past: refuse });
    expect(body.length).toBe(200);
  });
});

describe('boundedChunks (streamed through)', () => {
  it('passes each chunk on as it comes while within bounds', async () => {
    const seen: string[] = [];
    for await (const chunk of boundedChunks(chunks(2, 3), { limit: 5, error: refuse.error })) seen.push(chunk.toString());
    expect(seen).toEqual(['aa', 'bbb']);
  });

  it('throws at the first chunk past the limit, after passing on what came before', async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const chunk of boundedChunks(chunks(2, 3, 1), { limit: 5, error: refuse.error })) seen.push(chunk.toString());
    };
    await expect(run()).rejects.toThrow('too_large@5');
    expect(seen).toEqual(['aa', 'bbb']);
  });

  it('throws before the first chunk when the declared length is past the limit', async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const chunk of boundedChunks(chunks(1), { limit: 5, declaredLength: '50', error: refuse.error })) seen.push(chunk.toString());
    };
    await expect(run()).rejects.toThrow('too_large@5');
    expect(seen).toEqual([]);
  });
});
