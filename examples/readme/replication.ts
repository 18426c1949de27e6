/**
 * The README's replication example, verbatim between the region markers; what it leaves to the
 * reader is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
import type { Address, DatagramTransport } from 'ghostwire/transport';
import type { MessageFactory } from 'ghostwire/channels';

declare const serverOptions: {
  protocolId: bigint;
  privateKey: Uint8Array;
  publicAddresses: Address[];
  transports: DatagramTransport[];
};
declare const clientOptions: { transport: DatagramTransport };
declare const factory: MessageFactory;
declare const now: number;
declare function spawn(id: number, value: unknown): void;
declare function move(id: number, value: unknown): void;
declare function despawn(id: number, reason: string): void;

// #region readme
import { ClientMirror, defineEntity, ReplicationServer, ServerWorld } from 'ghostwire/replication';
import { MessageClient, MessageServer } from 'ghostwire/channels';
import { t } from 'ghostwire';

const Cube = defineEntity('cube', t.object({ position: t.vector3(t.float(-64, 64, 1 / 512)), rest: t.bool() }));
const types = [Cube];                                                   // the same list on both ends

// Server: one world; its ghost section rides in each client's packets as a channel.
const world = new ServerWorld({ types, capacity: 1024 });
const replication = new ReplicationServer({ world });                  // or { world, interest: { grid, radius } }
const server = new MessageServer({ ...serverOptions, factory, channels: [replication.channel, { kind: 'reliable-ordered' }] });
const cube = world.create(Cube, { position: [0, 1, 0], rest: false }); // typed by Cube's schema
world.set(cube, { position: [0, 2, 0], rest: false });                 // each step: change what moved,
world.tick();                                                           // quantize it once for every client,
server.update(now);                                                     // and send each its delta

// Client: the same types and capacity, the mirror's channel at the same index.
const mirror = new ClientMirror({
  types, capacity: 1024,
  onCreate: (ghost) => spawn(ghost.id, ghost.value),
  onUpdate: (ghost) => move(ghost.id, ghost.value),
  onDestroy: (ghost, tick, reason) => despawn(ghost.id, reason),       // 'destroyed' | 'out-of-scope' | 'reset'
});
const client = new MessageClient({ ...clientOptions, factory, channels: [mirror.channel, { kind: 'reliable-ordered' }] });
// #endregion

void [server, client];
