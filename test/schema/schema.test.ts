import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GameState, generateW1 } from '../../bench/w1/data.js';
import { GameStateSchema, gameStateCodec, gameStateInterpreted } from '../../bench/w1/schema.js';
import { serializeGameState } from '../../bench/w1/stream.js';
import { codegenAvailable, compile, type Infer, SchemaValueError, t } from '../../src/schema/index.js';
import { BitWriterOverflowError, ReadStream, WriteStream } from '../../src/serialize/index.js';
import { readSharedBytes, sharedSkip } from '../support/shared.js';

const Player = t.object({
  name: t.string(16),
  team: t.enum(['red', 'blue'] as const),
  score: t.int(-1000, 1000),
  alive: t.bool(),
  position: t.vector3(t.float(-100, 100, 0.01)),
  rotation: t.smallestThree(),
  avatar: t.optional(t.bytes(8)),
  inventory: t.array(t.object({ item: t.uint16(), count: t.int(1, 99) }), 8),
  session: t.uint64(),
  velocity: t.vector3(),
  clock: t.float64(),
});
type Player = Infer<typeof Player>;

const player = (): Player => ({
  name: 'zoë 🚀',
  team: 'blue',
  score: -17,
  alive: true,
  position: [1.5, -99.99, 42],
  rotation: [0, 0, 0.6, 0.8],
  avatar: new Uint8Array([1, 2, 3]),
  inventory: [
    { item: 7, count: 3 },
    { item: 65535, count: 99 },
  ],
  session: 0xfedcba9876543210n,
  velocity: [0.5, -2, 1e-3],
  clock: 1234.5678,
});

const codecs = [compile(Player), compile(Player, { codegen: false })];

describe('schemas', () => {
  it('generates code in Node, and the interpreter can be forced', () => {
    assert.equal(codegenAvailable(), true);
    assert.deepEqual(
      codecs.map((c) => c.compiled),
      [true, false],
    );
  });

  it('compiled and interpreted codecs write the same bytes and read back the value', () => {
    const [compiled, interpreted] = codecs;
    const bytes = compiled.encode(player()).slice();
    assert.deepEqual(interpreted.encode(player()), bytes);
    for (const codec of codecs) {
      const result = codec.decode(bytes);
      assert.ok(result.ok, result.ok ? '' : result.error);
      const v = result.value;
      assert.equal(v.name, 'zoë 🚀');
      assert.equal(v.team, 'blue');
      assert.equal(v.score, -17);
      assert.equal(v.session, 0xfedcba9876543210n);
      assert.deepEqual(v.avatar, new Uint8Array([1, 2, 3]));
      assert.deepEqual(v.inventory, player().inventory);
      assert.equal(v.clock, 1234.5678);
      assert.deepEqual(v.velocity, [0.5, -2, Math.fround(1e-3)]);
      v.position.forEach((x, i) => {
        assert.ok(Math.abs(x - player().position[i]) <= 0.005 + 1e-6);
      });
      v.rotation.forEach((x, i) => {
        assert.ok(Math.abs(x - player().rotation[i]) < 0.003);
      });
    }
  });

  it('an absent optional (undefined or null) costs one bit and reads back as undefined', () => {
    const [compiled] = codecs;
    const withAvatar = compiled.measure(player());
    const without = { ...player(), avatar: undefined };
    assert.equal(compiled.measure(without), withAvatar - (4 + 7 + 3 * 8)); // count [0, 8], align, bytes
    const result = compiled.decode(compiled.encode(without).slice());
    assert.ok(result.ok);
    assert.equal(result.value.avatar, undefined);
    // biome-ignore lint/suspicious/noExplicitAny: null is accepted at run time for JSON-shaped data
    assert.deepEqual(compiled.encode({ ...player(), avatar: null as any }), compiled.encode(without));
  });

  it('measure is an upper bound, exact where nothing aligns', () => {
    for (const codec of codecs) {
      const bits = codec.measure(player());
      const ws = new WriteStream(256);
      codec.write(ws, player());
      assert.ok(bits >= ws.bitsProcessed && bits - ws.bitsProcessed <= 14, `${bits} vs ${ws.bitsProcessed}`);
    }
    const W1 = generateW1();
    assert.equal(gameStateCodec.measure(W1), 10 + 148 * 1000);
    assert.equal(gameStateInterpreted.measure(W1), 10 + 148 * 1000);
    assert.equal(gameStateCodec.maxBits, 10 + 148 * 1000);
  });

  it('generated code continues a stream at any bit offset and hands the state back', () => {
    for (const codec of codecs) {
      for (let offset = 0; offset < 40; offset++) {
        const ws = new WriteStream(512);
        if (offset > 0) ws.bits(offset % 2 === 0 ? 0 : 1, 1);
        for (let i = 1; i < offset; i++) ws.bool(i % 3 === 0);
        codec.write(ws, player());
        ws.uint32(0xdeadbeef);
        codec.write(ws, player());
        const bytes = ws.finish().slice();

        const rs = new ReadStream();
        rs.reset(bytes);
        for (let i = 0; i < offset; i++) rs.bool(false);
        const first = codec.read(rs);
        assert.equal(rs.uint32(0), 0xdeadbeef, `offset ${offset} compiled ${codec.compiled}`);
        const second = codec.read(rs);
        assert.ok(first && second && rs.end(), rs.error ?? '');
        assert.equal(second.name, 'zoë 🚀');
      }
    }
    // And the two codecs agree bit for bit at every offset.
    const streams = codecs.map(() => new WriteStream(512));
    streams.forEach((ws, k) => {
      ws.bits(5, 3);
      codecs[k].write(ws, player());
    });
    assert.deepEqual(streams[0].finish(), streams[1].finish());
  });

  it('reading into a target reuses its objects and arrays, resizing arrays to the count read', () => {
    const [compiled] = codecs;
    const target = player();
    target.inventory.push({ item: 1, count: 1 }, { item: 2, count: 2 });
    const { inventory, position } = target;
    const first = inventory[0];
    const bytes = compiled.encode(player()).slice();
    const result = compiled.decode(bytes, target);
    assert.ok(result.ok);
    assert.equal(result.value, target);
    assert.equal(target.inventory, inventory);
    assert.equal(target.inventory[0], first);
    assert.equal(target.position, position);
    assert.equal(target.inventory.length, 2);
  });

  it('a bad value throws at the call, naming its path, in both modes', () => {
    const cases: [Partial<Record<keyof Player, unknown>>, string, RegExp][] = [
      [{ score: 1001 }, '.score', /outside \[-1000, 1000\]/],
      [{ score: 1.5 }, '.score', /not an integer/],
      [{ name: 'x'.repeat(17) }, '.name', /exceed/],
      [{ team: 'green' }, '.team', /enum/],
      [{ alive: 1 }, '.alive', /boolean/],
      [{ position: [1, 2] }, '.position', /exactly 3/],
      [{ position: [1, 'a', 3] }, '.position[1]', /number/],
      [{ avatar: new Uint8Array(9) }, '.avatar', /maxLength 8|at most 8|exceed/],
      [{ inventory: [{ item: 1, count: 0 }] }, '.inventory[0].count', /outside \[1, 99\]/],
      [{ inventory: new Array(9).fill({ item: 1, count: 1 }) }, '.inventory', /at most 8/],
      [{ rotation: [0, 0, 0, 2] }, '.rotation', /unit|length/i],
    ];
    for (const codec of codecs) {
      for (const [patch, path, message] of cases) {
        const value = { ...player(), ...patch } as Player;
        assert.throws(
          () => codec.encode(value),
          (error: unknown) =>
            error instanceof SchemaValueError && error.path === path && message.test(error.message),
          `${codec.compiled ? 'compiled' : 'interpreted'} ${path}`,
        );
      }
    }
  });

  it('refuses field names an object would inherit (an absent one would read the prototype)', () => {
    for (const name of ['__proto__', 'toString', 'constructor', 'valueOf', 'hasOwnProperty']) {
      assert.throws(() => t.object({ [name]: t.optional(t.bool()) }), /may not be named/, name);
    }
  });

  it('refuses array-index field names (JavaScript would put them first, out of declared order)', () => {
    for (const name of ['0', '1', '12', '4294967294']) {
      assert.throws(() => t.object({ b: t.bool(), [name]: t.bool() }), /array index/, name);
    }
    assert.doesNotThrow(() => t.object({ '01': t.bool(), '-1': t.bool(), '1.5': t.bool() }));
  });

  it('refuses schemas whose misuse would otherwise show up only later', () => {
    assert.throws(() => t.array(t.object({}), 10), /at least one bit/);
    assert.throws(() => t.array(t.int(3, 3), 10), /at least one bit/);
    assert.throws(() => t.array(t.string(0), 10), /at least one bit/);
    assert.doesNotThrow(() => t.array(t.string(1), 10));
    assert.throws(() => t.bits(0), /1\.\.32/);
    assert.throws(() => t.bits(33), /1\.\.32/);
    assert.throws(() => t.smallestThree(1), /2\.\.16/);
    assert.throws(() => t.float(-1e6, 1e6, 1e-6), /2\^32 steps/);
  });

  it('both modes refuse non-integers and non-numbers for an int, and non-arrays for an array', () => {
    const schema = t.object({ n: t.int(-10, 10), z: t.int(0, 10), list: t.array(t.uint8(), 4) });
    const good = { n: 1, z: 1, list: [1] };
    for (const codec of [compile(schema), compile(schema, { codegen: false })]) {
      for (const bad of [null, '5', true, [7], 1.5]) {
        assert.throws(
          () => codec.encode({ ...good, n: bad as number }),
          SchemaValueError,
          `n = ${String(bad)}`,
        );
        assert.throws(
          () => codec.encode({ ...good, z: bad as number }),
          SchemaValueError,
          `z = ${String(bad)}`,
        );
      }
      assert.throws(
        () => codec.encode({ ...good, list: new Uint8Array(1) as unknown as number[] }),
        SchemaValueError,
      );
      // biome-ignore lint/suspicious/noExplicitAny: a malformed value, as untyped callers send
      assert.throws(() => codec.encode(undefined as any), SchemaValueError);
      // biome-ignore lint/suspicious/noExplicitAny: a malformed value, as untyped callers send
      assert.throws(() => codec.measure({} as any), SchemaValueError);
    }
  });

  it('a value far past its bounds is refused without sizing a buffer for it', () => {
    const codec = compile(t.object({ blob: t.bytes(16) }));
    const big = new Uint8Array(64 * 1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    assert.throws(() => codec.encode({ blob: big }), /maxLength 16/);
    // No second buffer of the value's size was allocated (or kept) for the attempt.
    assert.ok(process.memoryUsage().arrayBuffers - before < 1024 * 1024);
  });

  it('input that is not a Uint8Array is rejected, never read as the previous packet', () => {
    const codec = compile(t.object({ id: t.uint16() }));
    assert.ok(codec.decode(codec.encode({ id: 4242 }).slice()).ok);
    for (const bad of [new ArrayBuffer(2), [1, 2], 'ab', null, undefined]) {
      const result = codec.decode(bad as unknown as Uint8Array);
      assert.deepEqual(result, { ok: false, error: 'input is not a Uint8Array at bit 0' });
    }
  });

  it('writing past the stream capacity throws a BitWriterOverflowError in both modes', () => {
    for (const codec of codecs) {
      assert.throws(() => codec.write(new WriteStream(8), player()), BitWriterOverflowError);
    }
  });

  it('writing past the stream capacity throws a RangeError from generated code', () => {
    const ws = new WriteStream(8);
    assert.throws(() => codecs[0].write(ws, player()), /BitWriter overflow/);
  });

  it('rejects bad input with a reason and never throws', () => {
    const [compiled, interpreted] = codecs;
    const bytes = compiled.encode(player()).slice();
    for (const codec of codecs) {
      const trailing = codec.decode(new Uint8Array([...bytes, 0]));
      assert.ok(!trailing.ok && /trailing/.test(trailing.error));
      for (let cut = 0; cut < bytes.length; cut++) {
        const result = codec.decode(bytes.subarray(0, cut));
        assert.equal(result.ok, false, `prefix ${cut}`);
      }
    }
    // Compiled reasons name the field: score range [-1000, 1000] is 11 bits, 2047 is out of range.
    const ws = new WriteStream(64);
    ws.string('a', 16);
    ws.bits(0, 1); // team
    ws.bits(2047, 11); // score
    // The fixed-size fields after it are there: a run of them is length-checked as a whole.
    ws.bits(0, 32);
    ws.bits(0, 32);
    const result = compiled.decode(ws.finish().slice());
    assert.ok(!result.ok);
    assert.match(result.error, /^\.score: int out of range \[-1000, 1000\] at bit \d+$/);
    assert.match((interpreted.decode(ws.finish().slice()) as { error: string }).error, /int out of range/);
  });
});

describe('W1 schema', { skip: sharedSkip() }, () => {
  it('compiled and interpreted both reproduce bench_gamestate_packet.bin and read it back', () => {
    const packet = readSharedBytes('vectors/bench_gamestate_packet.bin');
    const state = generateW1();
    for (const codec of [gameStateCodec, gameStateInterpreted]) {
      assert.deepEqual(codec.encode(state), packet);
      const decoded = codec.decode(packet);
      assert.ok(decoded.ok);
      const hand: GameState = { entities: [] };
      const rs = new ReadStream();
      rs.reset(packet);
      serializeGameState(rs, hand);
      assert.deepEqual(decoded.value, hand);
    }
    assert.equal(GameStateSchema.kind, 'object');
  });
});
