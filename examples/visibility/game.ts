/**
 * docs/game.md's "Private fields and teams" example, verbatim between the region markers
 * (checked by test/project/readme-examples.test.ts); what it leaves to the reader is declared
 * around it so that tsc checks it.
 */
import { defineGame, type GameClient, t } from 'ghostwire';

const coord = t.float(-512, 512, 1 / 64);
declare const enemy: number;

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
  // A private field reads undefined where this client does not see it.
  const mine = client.me?.state.ammo;                                  // a number: its own
  const theirs = client.entities.find((e) => e.id === enemy)?.state.ping; // undefined unless same team
  console.log(mine, theirs);
}
// #endregion
