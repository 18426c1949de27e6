/**
 * The lobby contestants (bench/suites/lobby.ts): every codec encodes the same lobby and decodes it
 * back, the peers into fresh objects as they do by default. The first one is the baseline.
 */
import { Decoder, Encoder, type SchemaType, schema, t } from '@colyseus/schema';
import avro from 'avsc';
import { FLOAT32_OPTIONS, Packr } from 'msgpackr';
import protobuf from 'protobufjs';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { fail } from '../harness.js';
import { digestLobby, type Lobby, type Player, TEAMS } from './data.js';
import { lobbyCodec } from './schema.js';
import { serializeLobby } from './stream.js';
import type { FloatPrecision } from './verify.js';

export interface LobbyContestant {
  readonly name: string;
  readonly precision: FloatPrecision;
  readonly description: string;
  /** Untimed, once: turn the lobby into what this codec sends. */
  prepare(lobby: Lobby): void;
  /** Timed: the bytes may be a view valid until the next encode. */
  encode(): Uint8Array;
  /** Timed: decodes what {@link encode} produced; fails on a rejected input. */
  decode(bytes: Uint8Array): unknown;
  /** Timed, cheap: {@link digestLobby} of a decoded value. */
  digest(decoded: unknown): number;
  /** Untimed: a decoded value in the lobby shape, for checking against the input. */
  toLobby(decoded: unknown): Lobby;
}

const asLobby = (decoded: unknown) => decoded as Lobby;

// --- ghostwire -----------------------------------------------------------------------------------

export const GHOSTWIRE_FRESH = 'ghostwire schema, fresh objects';

function ghostwireSchema(reuse: boolean): () => LobbyContestant {
  return () => {
    const target: Lobby = { players: [] };
    let input: Lobby;
    return {
      name: reuse ? 'ghostwire schema, reused target' : GHOSTWIRE_FRESH,
      precision: 'quantized',
      description: reuse
        ? 'compiled schema codec: encode(lobby); decode(bytes, target) into one reused lobby'
        : 'compiled schema codec: encode(lobby); decode(bytes) allocating a new lobby each time',
      prepare(lobby) {
        input = lobby;
      },
      encode: () => lobbyCodec.encode(input),
      decode(bytes) {
        const result = reuse ? lobbyCodec.decode(bytes, target) : lobbyCodec.decode(bytes);
        if (!result.ok) fail(`ghostwire schema: decode rejected its own encoding: ${result.error}`);
        return result.value;
      },
      digest: (decoded) => digestLobby(asLobby(decoded)),
      toLobby: asLobby,
    };
  };
}

function ghostwireStream(): LobbyContestant {
  const writer = new WriteStream(64 * 1024);
  const reader = new ReadStream();
  let input: Lobby;
  return {
    name: 'ghostwire stream',
    precision: 'quantized',
    description:
      'bench/lobby/stream.ts: one reused WriteStream; a ReadStream into a fresh lobby each time, checking end()',
    prepare(lobby) {
      input = lobby;
    },
    encode() {
      writer.reset();
      serializeLobby(writer, input);
      return writer.finish();
    },
    decode(bytes) {
      reader.reset(bytes);
      const lobby: Lobby = { players: [] };
      serializeLobby(reader, lobby);
      if (!reader.end()) fail(`ghostwire stream: ${reader.error}`);
      return lobby;
    },
    digest: (decoded) => digestLobby(asLobby(decoded)),
    toLobby: asLobby,
  };
}

// --- avsc ----------------------------------------------------------------------------------------

function avsc(): LobbyContestant {
  const type = avro.Type.forSchema({
    type: 'record',
    name: 'Lobby',
    fields: [
      {
        name: 'players',
        type: {
          type: 'array',
          items: {
            type: 'record',
            name: 'Player',
            fields: [
              { name: 'name', type: 'string' },
              { name: 'team', type: { type: 'enum', name: 'Team', symbols: [...TEAMS] } },
              { name: 'score', type: 'int' },
              { name: 'ready', type: 'boolean' },
              { name: 'party', type: ['null', 'int'] },
              {
                name: 'inventory',
                type: {
                  type: 'array',
                  items: {
                    type: 'record',
                    name: 'Item',
                    fields: [
                      { name: 'item', type: 'int' },
                      { name: 'count', type: 'int' },
                    ],
                  },
                },
              },
              { name: 'x', type: 'float' },
              { name: 'y', type: 'float' },
              { name: 'heading', type: 'float' },
            ],
          },
        },
      },
    ],
  });
  const buffer = Buffer.alloc(256 * 1024);
  let input: unknown;
  return {
    name: 'avsc',
    precision: 'float32',
    description:
      'Type.forSchema(record: string, enum, int, boolean, ["null","int"], array of record, float); type.encode(value, preallocated Buffer, 0); type.decode(bytes, 0) (generated record classes, fresh objects); absent party as null, converted once, untimed',
    prepare(lobby) {
      input = { players: lobby.players.map((p) => ({ ...p, party: p.party ?? null })) };
    },
    encode() {
      const end = type.encode(input, buffer, 0);
      if (end < 0) fail('avsc: encode buffer too small');
      return buffer.subarray(0, end);
    },
    decode(bytes) {
      const { value, offset } = type.decode(bytes as Buffer, 0);
      if (offset !== bytes.length) fail(`avsc: decoded ${offset} of ${bytes.length} bytes`);
      return value;
    },
    digest: (decoded) => digestLobby(asLobby(decoded)),
    toLobby: (decoded) => ({
      players: asLobby(decoded).players.map((p) => ({ ...p, party: p.party ?? undefined })),
    }),
  };
}

// --- msgpackr ------------------------------------------------------------------------------------

function msgpackr(): LobbyContestant {
  const structures: string[][] = [];
  const options = { useFloat32: FLOAT32_OPTIONS.ALWAYS };
  const packr = new Packr({ structures, ...options });
  let unpackr: Packr;
  let input: Lobby;
  return {
    name: 'msgpackr shared+f32',
    precision: 'float32',
    description:
      "new Packr({ structures, useFloat32: ALWAYS }), the receiver holding the same structures (msgpackr's fastest mode for a known shape); absent party as null",
    prepare(lobby) {
      input = {
        players: lobby.players.map((p) => ({ ...p, party: p.party ?? (null as unknown as undefined) })),
      };
      packr.pack(input);
      unpackr = new Packr({ structures: structures.map((s) => [...s]), ...options });
    },
    encode: () => packr.pack(input),
    decode: (bytes) => unpackr.unpack(bytes),
    digest: (decoded) => digestLobby(asLobby(decoded)),
    toLobby: (decoded) => ({
      players: asLobby(decoded).players.map((p) => ({ ...p, party: p.party ?? undefined })),
    }),
  };
}

// --- protobufjs ----------------------------------------------------------------------------------

interface PbPlayer extends Omit<Player, 'team'> {
  team: number;
}

function protobufjs(): LobbyContestant {
  const PbItem = new protobuf.Type('Item')
    .add(new protobuf.Field('item', 1, 'uint32'))
    .add(new protobuf.Field('count', 2, 'uint32'));
  const PbPlayerType = new protobuf.Type('Player')
    .add(new protobuf.Field('name', 1, 'string'))
    .add(new protobuf.Field('team', 2, 'uint32'))
    .add(new protobuf.Field('score', 3, 'uint32'))
    .add(new protobuf.Field('ready', 4, 'bool'))
    .add(new protobuf.Field('party', 5, 'uint32', 'optional'))
    .add(new protobuf.Field('inventory', 6, 'Item', 'repeated'))
    .add(new protobuf.Field('x', 7, 'float'))
    .add(new protobuf.Field('y', 8, 'float'))
    .add(new protobuf.Field('heading', 9, 'float'));
  const PbLobby = new protobuf.Type('Lobby').add(new protobuf.Field('players', 1, 'Player', 'repeated'));
  new protobuf.Root().define('lobby').add(PbItem).add(PbPlayerType).add(PbLobby);
  PbLobby.resolveAll();
  let input: { players: PbPlayer[] };
  return {
    name: 'protobufjs',
    precision: 'float32',
    description:
      'reflection-defined messages (string name, team as a uint32 index, optional uint32 party, repeated Item, float x/y/heading); Type.encode(msg).finish(); Type.decode(bytes). Converted to message shape once, untimed',
    prepare(lobby) {
      input = { players: lobby.players.map((p) => ({ ...p, team: TEAMS.indexOf(p.team) })) };
    },
    encode: () => PbLobby.encode(input).finish(),
    decode: (bytes) => PbLobby.decode(bytes),
    digest: (decoded) => digestLobby(asLobby(decoded)),
    toLobby: (decoded) => ({
      players: (decoded as unknown as { players: PbPlayer[] }).players.map((p) => ({
        name: p.name,
        team: TEAMS[p.team],
        score: p.score,
        ready: p.ready,
        // An absent optional field reads the prototype's default: only an own property was sent.
        party: Object.hasOwn(p, 'party') ? p.party : undefined,
        inventory: p.inventory.map((i) => ({ item: i.item, count: i.count })),
        x: p.x,
        y: p.y,
        heading: p.heading,
      })),
    }),
  };
}

// --- @colyseus/schema v5 -------------------------------------------------------------------------

const CsItem = schema({ item: t.uint8(), count: t.uint8() }, 'Item');
const CsPlayer = schema(
  {
    name: t.string(),
    team: t.uint8(),
    score: t.uint32(),
    ready: t.boolean(),
    party: t.uint8().optional(),
    inventory: t.array(CsItem),
    x: t.float32(),
    y: t.float32(),
    heading: t.float32(),
  },
  'Player',
);
type CsPlayer = SchemaType<typeof CsPlayer>;
const CsLobby = schema({ players: t.array(CsPlayer) }, 'Lobby');
type CsLobby = SchemaType<typeof CsLobby>;

function colyseus(): LobbyContestant {
  // The full lobby is ~31 KB, past the default shared buffer (W1 may already have raised it).
  Encoder.BUFFER_SIZE = Math.max(Encoder.BUFFER_SIZE, 64 * 1024);
  let encoder: Encoder<CsLobby>;
  let decoder: Decoder<CsLobby>;
  return {
    name: '@colyseus/schema',
    precision: 'float32',
    description:
      'schema() classes (string, team as uint8, uint32 score, optional uint8 party, array of Item, float32 x/y/heading), built once, untimed; Encoder.encodeAll() per send; one Decoder re-applying each full state into the same decoded state (not fresh objects)',
    prepare(lobby) {
      const root = new CsLobby();
      for (const p of lobby.players) {
        const c = new CsPlayer();
        c.name = p.name;
        c.team = TEAMS.indexOf(p.team);
        c.score = p.score;
        c.ready = p.ready;
        if (p.party !== undefined) c.party = p.party;
        for (const i of p.inventory) {
          const item = new CsItem();
          item.item = i.item;
          item.count = i.count;
          c.inventory.push(item);
        }
        c.x = p.x;
        c.y = p.y;
        c.heading = p.heading;
        root.players.push(c);
      }
      encoder = new Encoder(root);
      decoder = new Decoder(new CsLobby());
    },
    encode: () => encoder.encodeAll(),
    decode(bytes) {
      decoder.decode(bytes);
      return decoder.state;
    },
    digest: (decoded) => digestLobby(decoded as CsLobby),
    toLobby: (decoded) => ({
      players: (decoded as CsLobby).players.map((p: CsPlayer) => ({
        name: p.name,
        team: TEAMS[p.team],
        score: p.score,
        ready: p.ready,
        party: p.party,
        inventory: p.inventory.map((i) => ({ item: i.item, count: i.count })),
        x: p.x,
        y: p.y,
        heading: p.heading,
      })),
    }),
  };
}

/** The baseline (every ratio is against it) leads. */
export const LOBBY_CONTESTANTS: (() => LobbyContestant)[] = [
  ghostwireSchema(false),
  ghostwireSchema(true),
  ghostwireStream,
  avsc,
  msgpackr,
  protobufjs,
  colyseus,
];
