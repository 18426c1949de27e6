/**
 * docs/replication.md's "Per-field visibility" example, verbatim between the region markers
 * (checked by test/project/readme-examples.test.ts); what it leaves to the reader is declared
 * around it so that tsc checks it.
 */
import type { ClientMirror, EventType, ReplicationServer, ServerWorld } from 'ghostwire/replication';
import { t } from 'ghostwire/schema';

declare const world: ServerWorld;
declare const replication: ReplicationServer;
declare const mirror: ClientMirror;
declare const clientIndex: number;
declare const coachIndex: number;
declare const n: number;
declare const Reloaded: EventType<{ n: number }, 'reloaded'>;
declare function isCoach(client: number): boolean;
const coord = t.float(-512, 512, 1 / 64);

// #region docs
import { defineEntity, group, owner, when } from 'ghostwire/replication';

const Player = defineEntity('player', t.object({
  x: coord, y: coord, hp: t.uint8(),
  ammo: t.uint8(),                                    // owner only
  loadout: t.bytes(32),                               // owner only
  ping: t.object({ x: coord, y: coord }),             // team only
  dossier: t.string(40),                              // whoever the test admits
}), {
  position: (p) => [p.x, p.y],
  visibility: { ammo: owner(), loadout: owner(), ping: group(), dossier: when((client) => isCoach(client)) },
});

const player = world.create(Player, {
  x: 0, y: 0, hp: 100, ammo: 30, loadout: new Uint8Array(32), ping: { x: 0, y: 0 }, dossier: '',
});
world.setOwner(player, clientIndex);        // the owner sees ammo and loadout
world.setGroup(player, 1);                  // the entity is on team 1...
replication.setGroups(clientIndex, 1 << 1); // ...and so is this client: it sees ping
replication.revisitClient(coachIndex);      // a `when` test's inputs changed: ask it again
replication.emit(Reloaded, { n }, { entity: player, part: 'ammo' }); // to the ammo's holders only

// Client: ghost.value.ammo is a number where this client holds it; elsewhere there is no ammo key.
mirror.holds(player.id, 'ammo');
// #endregion
