import { compile } from '../../src/schema/codec.js';
import { type Infer, t } from '../../src/schema/schema.js';
import {
  HEADING_RANGE,
  HEADING_RESOLUTION,
  type Lobby,
  MAX_ITEMS,
  MAX_PARTY,
  MAX_PLAYERS,
  NAME_MAX_BYTES,
  type Player,
  POSITION_RANGE,
  POSITION_RESOLUTION,
  SCORE_BITS,
  TEAMS,
} from './data.js';

/** The lobby declared as a schema: compiled, it writes the same bits as bench/lobby/stream.ts. */
export const PlayerSchema = t.object({
  name: t.string(NAME_MAX_BYTES),
  team: t.enum(TEAMS),
  score: t.bits(SCORE_BITS),
  ready: t.bool(),
  party: t.optional(t.int(0, MAX_PARTY)),
  inventory: t.array(t.object({ item: t.uint8(), count: t.int(0, 99) }), MAX_ITEMS),
  x: t.float(-POSITION_RANGE, POSITION_RANGE, POSITION_RESOLUTION),
  y: t.float(-POSITION_RANGE, POSITION_RANGE, POSITION_RESOLUTION),
  heading: t.float(-HEADING_RANGE, HEADING_RANGE, HEADING_RESOLUTION),
});

export const LobbySchema = t.object({ players: t.array(PlayerSchema, MAX_PLAYERS) });

/** The schema's inferred types are the workload's hand-written ones (checked at compile time). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const samePlayer: Same<Infer<typeof PlayerSchema>, Player> = true;
const sameLobby: Same<Infer<typeof LobbySchema>, Lobby> = true;
void samePlayer;
void sameLobby;

export const lobbyCodec = compile(LobbySchema);
export const lobbyInterpreted = compile(LobbySchema, { codegen: false });
