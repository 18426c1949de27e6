/**
 * Private fields (`visibility`) are typed as possibly absent on clients and present on the
 * server, from the declaration's literal keys: the checks are the compiler's (this file does not
 * build when a type is wrong); the run checks the definition's `privateFields` list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import type { GameClient } from '../../src/game/game-client.js';
import type { ClientStateOf, StateOf } from '../../src/game/game-types.js';
import { t } from '../../src/schema/schema.js';
import { arena as plain } from '../support/test-game.js';

/** true when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <T extends true>(): T => true as T;

const coord = t.float(-64, 64, 1 / 64);
const secret = defineGame({
  name: 'private-types',
  entities: {
    avatar: {
      state: t.object({ x: coord, ammo: t.uint8(), ping: t.object({ x: coord, y: coord }) }),
      visibility: { ammo: 'owner', ping: 'team' },
      hitbox: (a) => ({ type: 'circle', x: a.x, y: a.ammo, radius: 0.5 }),
    },
    crate: { state: t.object({ x: coord, loot: t.uint8() }), visibility: { loot: 'team' } },
    rock: { state: t.object({ x: coord }) },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  // The step is server-side too: its state has every field.
  step: (a, input) => ({ ...a, x: a.x + input.dx, ammo: a.ammo - 1 }),
});
type Secret = typeof secret;
type Ping = { x: number; y: number };

// The server's types keep every field required.
same<Same<StateOf<Secret>, { x: number; ammo: number; ping: Ping }>>();
same<Same<StateOf<Secret, 'crate'>, { x: number; loot: number }>>();
// A client's make the private ones optional, and only those.
same<Same<ClientStateOf<Secret>, { x: number; ammo?: number; ping?: Ping }>>();
same<Same<ClientStateOf<Secret, 'crate'>, { x: number; loot?: number }>>();
same<Same<ClientStateOf<Secret, 'rock'>, { x: number }>>();
same<Same<Secret['privateFields']['avatar'], readonly ('ammo' | 'ping')[]>>();
same<Same<Secret['privateFields']['rock'], readonly never[]>>();
// The client's views: `me`, `entities`, the expert layers' predicted state.
same<Same<NonNullable<GameClient<Secret>['me']>['state'], ClientStateOf<Secret>>>();
same<Same<ReturnType<GameClient<Secret>['expert']['latency']['shown']>, ClientStateOf<Secret> | null>>();
// Replays (and kill-cams) sample any of the game's types as a client holds them.
type Sampled = ReturnType<ReturnType<GameClient<Secret>['openReplay']>['sample']>;
same<
  Same<
    Sampled,
    { x: number; ammo?: number; ping?: Ping } | { x: number; loot?: number } | { x: number } | null
  >
>();
type Killcam = Parameters<Parameters<GameClient<Secret>['onKillcam']>[0]>[0];
same<Same<ReturnType<Killcam['followed']>, Sampled>>();
// A game without visibility keeps exactly its types on clients.
type Avatar = { x: number; y: number; score: number };
same<Same<ClientStateOf<typeof plain>, Avatar>>();
same<Same<NonNullable<GameClient<typeof plain>['me']>['state'], Avatar>>();
same<Same<GameClient<typeof plain>['entities'][number]['state'], Avatar | { x: number; y: number }>>();

/** Never called: compiled, so a private field read without a check fails the build. */
export function onClient(client: GameClient<Secret>): void {
  const me = client.me;
  if (me === null) return;
  // @ts-expect-error a private field may be absent on a client: check it first
  me.state.ammo.toFixed();
  if (me.state.ammo !== undefined) me.state.ammo.toFixed();
  me.state.x.toFixed(); // a public field is always there
  for (const e of client.entities) {
    if (e.type === 'avatar') {
      // @ts-expect-error a nested private field too
      e.state.ping.x.toFixed();
      e.state.ping?.x.toFixed();
    } else if (e.type === 'crate') {
      // @ts-expect-error another type's private field
      e.state.loot.toFixed();
    } else e.state.x.toFixed();
  }
  const replay = client.openReplay(new Uint8Array());
  const shown = replay.sample(0);
  if (shown !== null && 'ammo' in shown) {
    // @ts-expect-error in a replay too
    shown.ammo.toFixed();
    shown.ammo?.toFixed();
  }
}

/** Never called: on the server (rules, hooks) the private fields are present. */
export const rules = secret.rules({
  onJoin(game, player) {
    const avatar = player.spawn({ x: 0, ammo: 30, ping: { x: 0, y: 0 } });
    avatar.state.ammo.toFixed();
    // @ts-expect-error a spawn gives every field, private ones included
    player.spawn({ x: 0, ping: { x: 0, y: 0 } });
    for (const e of game.entities) if (e.type === 'crate') e.state.loot.toFixed();
  },
  onTick(game) {
    for (const player of game.players) player.state?.ammo.toFixed();
  },
});

/** Never called: a visibility key must name a field of its type, with 'owner' or 'team'. */
export function declarationsChecked(): void {
  defineGame({
    name: 'bad-field',
    entities: {
      // @ts-expect-error no field named nope
      avatar: { state: t.object({ x: coord }), visibility: { nope: 'owner' } },
    },
    input: t.object({ dx: t.int(-1, 1) }),
    step: (a) => a,
  });
  defineGame({
    name: 'bad-audience',
    entities: {
      // @ts-expect-error an audience other than 'owner' or 'team'
      avatar: { state: t.object({ x: coord }), visibility: { x: 'everyone' } },
    },
    input: t.object({ dx: t.int(-1, 1) }),
    step: (a) => a,
  });
}

describe('private field types', () => {
  it("the definition lists each type's private fields in declared order", () => {
    assert.deepEqual(secret.privateFields, { avatar: ['ammo', 'ping'], crate: ['loot'], rock: [] });
    assert.deepEqual(plain.privateFields, { avatar: [], target: [] });
    assert.ok(Object.isFrozen(secret.privateFields) && Object.isFrozen(secret.privateFields.avatar));
  });
});
