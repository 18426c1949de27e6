/**
 * Whether a client's mirror of a zoned world (its ghosts' newest states) equals what its zones hold, as the gateway's
 * interest rule picks it: ReplicationServer's by distance (interest-manager.ts), centred on the
 * player's own entity (ZoneGateway.centreViews). An entity within the radius is shown; one beyond
 * radius × leaveFactor is not; one between is shown if it was shown before and has not gone past
 * the outer edge since (hysteresis), which the states of one moment cannot tell: either is right.
 * The client does not know world ids, so entities are compared as multisets of type + state, a
 * state as its schema's codec encodes it (the quantized value: a client's float and a zone's can
 * differ below the quantum, as 60 and 60.0000038 do).
 */
import { type GameDefinition, wiringOf } from '../../src/game/define-game.js';
import type { GameClient } from '../../src/game/game-client.js';
import { DEFAULT_LEAVE_FACTOR } from '../../src/replication/interest-view.js';
import { type Codec, compile } from '../../src/schema/codec.js';

export interface HeldEntity {
  worldId: number;
  type: string;
  state: Record<string, number>;
}

export interface ShownEntities {
  me: { type: string; state: unknown } | null;
  entities: readonly { type: string; state: unknown }[];
}

/**
 * The client's mirror: every ghost's newest state, its own apart. Not `client.entities`: those are
 * sampled at the render tick, and a ghost that stopped is shown extrapolated past its last state
 * (GhostSampler holds it maxExtrapolationTicks on), which the mirror is not.
 */
export function mirrorOf(client: GameClient): ShownEntities {
  const mirror = client.expert.mirror;
  const ownId = client.me?.id ?? -1;
  let me: ShownEntities['me'] = null;
  const entities: { type: string; state: unknown }[] = [];
  for (let id = 0; id < mirror.capacity; id++) {
    const ghost = mirror.ghost(id);
    if (ghost === null) continue;
    const entity = { type: ghost.type.name, state: ghost.value };
    if (id === ownId) me = entity;
    else entities.push(entity);
  }
  return { me, entities };
}

export interface ViewCheck {
  /** The world id of the client's own entity, or -1 when no held entity has its state. */
  own: number;
  problems: string[];
}

const codecsOf = new WeakMap<GameDefinition, Map<string, Codec<unknown>>>();

/** type + the state's bytes: equal exactly when the type and the quantized state are. */
function keyer(game: GameDefinition): (type: string, state: unknown) => string {
  let codecs = codecsOf.get(game);
  if (codecs === undefined) {
    codecs = new Map(
      wiringOf('checkView', game).types.map((t) => [t.name, compile(t.schema) as Codec<unknown>]),
    );
    codecsOf.set(game, codecs);
  }
  const known = codecs;
  return (type, state) => {
    const codec = known.get(type);
    if (codec === undefined) return `${type}? ${JSON.stringify(state)}`;
    return `${type} ${Buffer.from(codec.encode(state)).toString('hex')}`;
  };
}

/** Compares a client's view (`me` and the others) with the zones' entities (positions: x, y). */
export function checkView(
  client: ShownEntities,
  held: readonly HeldEntity[],
  game: GameDefinition,
  radius: number,
  leaveFactor = DEFAULT_LEAVE_FACTOR,
): ViewCheck {
  const problems: string[] = [];
  const keyOf = keyer(game);
  if (client.me === null) return { own: -1, problems: ['the client has no entity of its own'] };
  const meKey = keyOf(client.me.type, client.me.state);
  const mine = held.filter((e) => keyOf(e.type, e.state) === meKey);
  if (mine.length !== 1)
    return {
      own: -1,
      problems: [
        `its own entity ${JSON.stringify(client.me.state)} is held by the zones ${mine.length} times`,
      ],
    };
  const own = mine[0];
  const { x: cx, y: cy } = own.state;
  // As the grid's query: squared distances of the (float) positions against the squared radius.
  const enter = radius * radius;
  const leave = radius * leaveFactor * (radius * leaveFactor);
  const must = new Map<string, number>();
  const may = new Set<string>();
  const readable = new Map<string, string>();
  const name = (key: string, state: unknown) => {
    if (!readable.has(key)) readable.set(key, `${key.split(' ')[0]} ${JSON.stringify(state)}`);
    return key;
  };
  for (const e of held) {
    if (e === own) continue;
    const dx = e.state.x - cx;
    const dy = e.state.y - cy;
    const d2 = dx * dx + dy * dy;
    const key = name(keyOf(e.type, e.state), e.state);
    if (d2 <= enter) must.set(key, (must.get(key) ?? 0) + 1);
    else if (d2 <= leave) may.add(key);
  }
  const shown = new Map<string, number>();
  for (const e of client.entities) {
    const key = name(keyOf(e.type, e.state), e.state);
    shown.set(key, (shown.get(key) ?? 0) + 1);
  }
  for (const [key, count] of must) {
    const seen = shown.get(key) ?? 0;
    if (seen < count) problems.push(`missing ${readable.get(key)} (held ${count}, shown ${seen})`);
  }
  for (const [key, count] of shown) {
    const allowed = (must.get(key) ?? 0) + (may.has(key) ? count : 0);
    if (count > allowed)
      problems.push(`shown but not held within its interest: ${readable.get(key)} ×${count - allowed}`);
  }
  if (problems.length > 0)
    problems.unshift(
      `at (${cx}, ${cy}): ${client.entities.length} shown, ${[...must.values()].reduce((a, b) => a + b, 0)} within the radius, ${may.size} in the band`,
    );
  return { own: own.worldId, problems };
}
