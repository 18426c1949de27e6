/**
 * docs/game.md's "Private fields and teams" example, verbatim between the region markers
 * (checked by test/project/readme-examples.test.ts); what it leaves to the reader is declared
 * around it so that tsc checks it.
 */
import { defineGame, type GameClient, t } from 'ghostwire';

const coord = t.float(-512, 512, 1 / 64);
declare function drawAmmo(ammo: number): void;
declare function drawPing(ping: { x: number; y: number }): void;

// #region docs
export const arena = defineGame({
  name: 'arena',
  entities: {
    avatar: {
      state: t.object({ x: coord, ammo: t.uint8(), ping: t.object({ x: coord, y: coord }) }),
      visibility: { ammo: 'owner', ping: 'team' },
    },
  },
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: a.x + input.dx }),
  events: { reloaded: t.object({ ammo: t.uint8() }) },
});

export const rules = arena.rules({
  onJoin(game, player) {
    player.team = game.players.length % 2; // a team is an integer in [0, 31]; null: none (the default)
    player.spawn({ x: 0, ammo: 30, ping: { x: 0, y: 0 } }); // its own entity joins its team
  },
  onTick(game) {
    for (const player of game.players) {
      if (player.entity === null || player.input?.dx !== 0) continue;
      // later: player.team = 1 — from the next tick it sees team 1's pings, no longer team 0's
      game.emit('reloaded', { ammo: 30 }, { part: { entity: player.entity, field: 'ammo' } });
    }
  },
});

export function draw(client: GameClient<typeof arena>): void {
  // On a client a private field is optional (ammo?: number): absent where this client does not hold it.
  const me = client.me;
  if (me !== null && me.state.ammo !== undefined) drawAmmo(me.state.ammo); // its own: held once received
  for (const e of client.entities)
    if (e.state.ping !== undefined) drawPing(e.state.ping); // a teammate's only
  // me.state.ammo.toFixed() does not compile here: 'me.state.ammo' is possibly 'undefined'.
}
// #endregion
