/**
 * The W1 contestants: every codec the W1 suite (bench/suites/w1.ts) times, encodes the same 1000
 * entities and decodes them back. To add one, append a factory to {@link W1_CONTESTANTS} below —
 * for a compiled ghostwire schema codec, `schemaCodecContestant(name, codec)` does all the work.
 */
import { Decoder, Encoder, type SchemaType, schema, t } from '@colyseus/schema';
import { FLOAT32_OPTIONS, Packr } from 'msgpackr';
import protobuf from 'protobufjs';
import { ReadStream } from '../../src/serialize/read-stream.js';
import type { Stream } from '../../src/serialize/stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { fail } from '../harness.js';
import type { Entity, GameState } from './data.js';
import { gameStateCodec, gameStateInterpreted } from './schema.js';
import { serializeGameState } from './stream.js';
import { digestW1, type FloatPrecision } from './verify.js';

/** One W1 codec, built once per run by its factory. */
export interface W1Contestant {
  readonly name: string;
  /** How closely decoded floats must match the input (checked once, before timing). */
  readonly precision: FloatPrecision;
  /** One line on what exactly is measured; printed under the tables. */
  readonly description: string;
  /** Untimed, once: turn the W1 state into what this codec sends (e.g. Schema instances). */
  prepare(state: GameState): void;
  /** Timed: encodes the prepared state. The bytes may be a view valid until the next encode. */
  encode(): Uint8Array;
  /** Timed: decodes what {@link encode} produced; throws (or fails) on a rejected input. */
  decode(bytes: Uint8Array): unknown;
  /** Timed, cheap: {@link digestW1} of a decoded value. */
  digest(decoded: unknown): number;
  /** Untimed: a decoded value in the W1 shape, for checking against the input. */
  toState(decoded: unknown): GameState;
}

/** The result shape of a compiled ghostwire schema codec's decode. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** What a compiled ghostwire schema codec exposes. */
export interface SchemaCodecLike<T> {
  encode(state: T): Uint8Array;
  decode(bytes: Uint8Array, target: T): DecodeResult<T>;
}

/**
 * Adapts a compiled schema codec: encodes the W1 state, decodes into one reused target.
 * `fromW1`/`toW1` convert when the codec's state type is not the W1 `GameState` shape.
 */
export function schemaCodecContestant<T = GameState>(
  name: string,
  codec: SchemaCodecLike<T>,
  options: {
    precision?: FloatPrecision;
    description?: string;
    /** A fresh target to decode into (reused for every decode). */
    target?: () => T;
    fromW1?: (state: GameState) => T;
    toW1?: (value: T) => GameState;
  } = {},
): () => W1Contestant {
  return () => {
    const fromW1 = options.fromW1 ?? ((s: GameState) => s as unknown as T);
    const toW1 = options.toW1 ?? ((v: T) => v as unknown as GameState);
    const target = options.target?.() ?? ({ entities: [] } as unknown as T);
    let input: T;
    return {
      name,
      precision: options.precision ?? 'quantized',
      description:
        options.description ?? 'compiled schema codec: encode(state), decode(bytes, reused target)',
      prepare(state) {
        input = fromW1(state);
      },
      encode: () => codec.encode(input),
      decode(bytes) {
        const result = codec.decode(bytes, target);
        if (!result.ok) fail(`${name}: decode rejected its own encoding: ${String(result.error)}`);
        return result.value;
      },
      digest: (decoded) => digestW1(toW1(decoded as T)),
      toState: (decoded) => toW1(decoded as T),
    };
  };
}

// --- ghostwire unified serialize functions -------------------------------------------------------

export const GHOSTWIRE_STREAM = 'ghostwire stream';
export const GHOSTWIRE_STREAM_COMPILED = 'ghostwire stream, compiled serialize';

/** A unified serialize function run through one reused WriteStream and ReadStream. */
function streamContestant(
  name: string,
  serialize: (s: Stream, state: GameState) => void,
  description: string,
): () => W1Contestant {
  return () => {
    const writer = new WriteStream(32 * 1024);
    const reader = new ReadStream(32 * 1024);
    const target: GameState = { entities: [] };
    let input: GameState;
    return {
      name,
      precision: 'quantized',
      description: `${description}: one reused WriteStream (reset, serialize, finish -> view); one reused ReadStream into a reused state, checking ok and end()`,
      prepare(state) {
        input = state;
      },
      encode() {
        writer.reset();
        serialize(writer, input);
        return writer.finish();
      },
      decode(bytes) {
        reader.reset(bytes);
        serialize(reader, target);
        if (!reader.end()) fail(`${name}: ${reader.error}`);
        return target;
      },
      digest: (decoded) => digestW1(decoded as GameState),
      toState: (decoded) => decoded as GameState,
    };
  };
}

// --- JSON ----------------------------------------------------------------------------------------

function json(): W1Contestant {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let input: GameState;
  return {
    name: 'JSON',
    precision: 'exact',
    description: 'TextEncoder.encode(JSON.stringify(state)); JSON.parse(TextDecoder.decode(bytes))',
    prepare(state) {
      input = state;
    },
    encode: () => encoder.encode(JSON.stringify(input)),
    decode: (bytes) => JSON.parse(decoder.decode(bytes)),
    digest: (decoded) => digestW1(decoded as GameState),
    toState: (decoded) => decoded as GameState,
  };
}

// --- msgpackr ------------------------------------------------------------------------------------

function msgpackr(name: string, description: string, shared: boolean, float32: boolean): () => W1Contestant {
  return () => {
    const structures: string[][] = [];
    const packr = new Packr({
      ...(shared ? { structures } : {}),
      ...(float32 ? { useFloat32: FLOAT32_OPTIONS.ALWAYS } : {}),
    });
    let unpackr: Packr;
    let input: GameState;
    return {
      name,
      precision: float32 ? 'float32' : 'exact',
      description,
      prepare(state) {
        input = state;
        // The receiver knows the shared structures up front (a copy of what the sender recorded).
        packr.pack(state);
        unpackr = new Packr({
          ...(shared ? { structures: structures.map((s) => [...s]) } : {}),
          ...(float32 ? { useFloat32: FLOAT32_OPTIONS.ALWAYS } : {}),
        });
      },
      encode: () => packr.pack(input),
      decode: (bytes) => unpackr.unpack(bytes),
      digest: (decoded) => digestW1(decoded as GameState),
      toState: (decoded) => decoded as GameState,
    };
  };
}

/** flags[k] as bit k, for codecs that send the four flags as one integer. */
function packFlags(flags: readonly boolean[]): number {
  return (flags[0] ? 1 : 0) | (flags[1] ? 2 : 0) | (flags[2] ? 4 : 0) | (flags[3] ? 8 : 0);
}

/** A decoded repeated float as the W1 3-vector (a wrong length fails the check). */
function vec3(values: number[]): [number, number, number] {
  if (values.length !== 3) fail(`decoded a ${values.length}-element vector`);
  return [values[0], values[1], values[2]];
}

function unpackFlags(bits: number): Entity['flags'] {
  return [(bits & 1) !== 0, (bits & 2) !== 0, (bits & 4) !== 0, (bits & 8) !== 0];
}

// --- protobufjs ----------------------------------------------------------------------------------

interface PbEntity {
  id: number;
  position: number[];
  orientationLargest: number;
  orientation: number[];
  velocity: number[];
  health: number;
  /** bit k = flags[k] */
  flags: number;
}

function protobufjs(): W1Contestant {
  const packed = { packed: true };
  const PbEntityType = new protobuf.Type('Entity')
    .add(new protobuf.Field('id', 1, 'uint32'))
    .add(new protobuf.Field('position', 2, 'float', 'repeated', undefined, packed))
    .add(new protobuf.Field('orientationLargest', 3, 'uint32'))
    .add(new protobuf.Field('orientation', 4, 'float', 'repeated', undefined, packed))
    .add(new protobuf.Field('velocity', 5, 'float', 'repeated', undefined, packed))
    .add(new protobuf.Field('health', 6, 'uint32'))
    .add(new protobuf.Field('flags', 7, 'uint32'));
  const PbState = new protobuf.Type('GameState').add(new protobuf.Field('entities', 1, 'Entity', 'repeated'));
  new protobuf.Root().define('w1').add(PbEntityType).add(PbState);
  PbState.resolveAll();
  let input: { entities: PbEntity[] };
  return {
    name: 'protobufjs',
    precision: 'float32',
    description:
      'reflection-defined messages (uint32 id/orientationLargest/health, packed repeated float vectors, flags as a uint32 bitfield); Type.encode(msg).finish(); Type.decode(bytes). State converted to message shape once, untimed',
    prepare(state) {
      input = {
        entities: state.entities.map((e) => ({
          id: e.id,
          position: e.position,
          orientationLargest: e.orientationLargest,
          orientation: e.orientation,
          velocity: e.velocity,
          health: e.health,
          flags: packFlags(e.flags),
        })),
      };
    },
    encode: () => PbState.encode(input).finish(),
    decode: (bytes) => PbState.decode(bytes),
    digest: (decoded) => digestW1(decoded as unknown as GameState),
    toState: (decoded) => ({
      entities: (decoded as unknown as { entities: PbEntity[] }).entities.map((e) => ({
        id: e.id,
        position: vec3(e.position),
        orientationLargest: e.orientationLargest,
        orientation: vec3(e.orientation),
        velocity: vec3(e.velocity),
        health: e.health,
        flags: unpackFlags(e.flags),
      })),
    }),
  };
}

// --- @colyseus/schema v5 -------------------------------------------------------------------------

const CsEntity = schema(
  {
    id: t.uint16(),
    px: t.float32(),
    py: t.float32(),
    pz: t.float32(),
    orientationLargest: t.uint8(),
    ox: t.float32(),
    oy: t.float32(),
    oz: t.float32(),
    vx: t.float32(),
    vy: t.float32(),
    vz: t.float32(),
    health: t.uint8(),
    /** bit k = flags[k] */
    flags: t.uint8(),
  },
  'Entity',
);
type CsEntity = SchemaType<typeof CsEntity>;
const CsState = schema({ entities: t.array(CsEntity) }, 'GameState');
type CsState = SchemaType<typeof CsState>;

function csToW1(e: CsEntity): Entity {
  return {
    id: e.id,
    position: [e.px, e.py, e.pz],
    orientationLargest: e.orientationLargest,
    orientation: [e.ox, e.oy, e.oz],
    velocity: [e.vx, e.vy, e.vz],
    health: e.health,
    flags: unpackFlags(e.flags),
  };
}

function colyseus(): W1Contestant {
  // A full W1 state is ~64 KB; the default 16 KB shared buffer would grow with a warning.
  Encoder.BUFFER_SIZE = 128 * 1024;
  let encoder: Encoder<CsState>;
  let decoder: Decoder<CsState>;
  return {
    name: '@colyseus/schema',
    precision: 'float32',
    description:
      'schema() with flat fields (uint16 id, float32 x/y/z, uint8 orientationLargest/health, flags as a uint8 bitfield) in t.array; state kept in Schema instances (built once, untimed); one Encoder, encodeAll() per send (the full-state path for a joining client); one Decoder re-applying each full state into the same decoded state',
    prepare(state) {
      const root = new CsState();
      for (const e of state.entities) {
        const c = new CsEntity();
        c.id = e.id;
        [c.px, c.py, c.pz] = e.position;
        c.orientationLargest = e.orientationLargest;
        [c.ox, c.oy, c.oz] = e.orientation;
        [c.vx, c.vy, c.vz] = e.velocity;
        c.health = e.health;
        c.flags = packFlags(e.flags);
        root.entities.push(c);
      }
      encoder = new Encoder(root);
      decoder = new Decoder(new CsState());
    },
    encode: () => encoder.encodeAll(),
    decode(bytes) {
      decoder.decode(bytes);
      return decoder.state;
    },
    digest(decoded) {
      const entities = (decoded as CsState).entities;
      const last = entities[entities.length - 1];
      return entities.length + last.id + last.health;
    },
    toState: (decoded) => ({ entities: (decoded as CsState).entities.map(csToW1) }),
  };
}

// =================================================================================================
// THE CONTESTANT LIST — add contestants here (the first one is the baseline every ratio uses).
// The compiled schema leads: it is the path ghostwire recommends for bulk state.
// =================================================================================================
export const W1_CONTESTANTS: (() => W1Contestant)[] = [
  schemaCodecContestant('ghostwire schema', gameStateCodec),
  // Decoding into fresh objects every time, as every peer below does: what a reused target saves.
  schemaCodecContestant(
    'ghostwire schema, fresh objects',
    { encode: (state) => gameStateCodec.encode(state), decode: (bytes) => gameStateCodec.decode(bytes) },
    { description: 'compiled schema codec: encode(state), decode(bytes) allocating a new state each time' },
  ),
  schemaCodecContestant('ghostwire schema (interpreted)', gameStateInterpreted, {
    description: 'compile(schema, { codegen: false }): the interpreter used where eval is not allowed',
  }),
  streamContestant(GHOSTWIRE_STREAM, serializeGameState, 'bench/w1/stream.ts serializeGameState, by hand'),
  // The unified form compiled from the schema: what a hand-written function can hand its bulk to.
  streamContestant(
    GHOSTWIRE_STREAM_COMPILED,
    (s, state) => gameStateCodec.serialize(s, state),
    'gameStateCodec.serialize(stream, state), the schema codec as a unified serialize function',
  ),
  json,
  msgpackr(
    'msgpackr Packr()',
    'new Packr() defaults (record extension on, definitions inline per message)',
    false,
    false,
  ),
  msgpackr(
    'msgpackr shared structs',
    "new Packr({ structures }) with the receiver holding the same structures (msgpackr's recommended fastest mode for a known shape)",
    true,
    false,
  ),
  msgpackr(
    'msgpackr shared+f32',
    'shared structures and useFloat32: ALWAYS (lossless here: every W1 float is a float32)',
    true,
    true,
  ),
  protobufjs,
  colyseus,
];
