/**
 * docs/latency.md's server, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so that tsc
 * checks it.
 */
import type { Address, DatagramTransport } from 'ghostwire/transport';
import type { Entity } from 'ghostwire/replication';
import type { MessageFactory } from 'ghostwire/channels';
import type { Place } from './game.js';

declare const serverOptions: {
  protocolId: bigint;
  privateKey: Uint8Array;
  publicAddresses: Address[];
  transports: DatagramTransport[];
};
declare const factory: MessageFactory;
declare function now(): number;
declare function moveRunners(): void;
declare function onHit(shooter: number, runnerId: number): void;
declare const runners: Entity<Place & { teleported: boolean }>[];

// #region docs
import { InputReceiver, LagCompensation, TickClock } from 'ghostwire/latency';
import { MessageServer } from 'ghostwire/channels';
import { ReplicationServer, ServerWorld } from 'ghostwire/replication';
import { Move, Player, Runner, runnerLerp, TICK_RATE, types, walk } from './game.js';

const world = new ServerWorld({ types, capacity: 1024 });
const replication = new ReplicationServer({ world });
const inputs = new InputReceiver({ schema: Move, tickRate: TICK_RATE }); // a 2-tick buffer per client
const players = new Map<number, Entity<Place>>(); // client index → its player
const server = new MessageServer({
  ...serverOptions,
  factory,
  channels: [replication.channel, inputs.channel], // the client lists mirror + input sender here
  onConnect: (client) => {
    const player = world.create(Player, { x: 0, y: 0 });
    world.setOwner(player, client);
    players.set(client, player); // tell the client its player's id (player.id), e.g. in a message
  },
  onDisconnect: (client) => {
    const player = players.get(client);
    if (player !== undefined) world.destroy(player);
    players.delete(client);
  },
});
const lag = new LagCompensation({
  interpolator: runnerLerp, // the clients' blend
  layout: Runner.layout, // record what clients decode
  tickRate: TICK_RATE,
  capacity: world.capacity,
  bounds: (s, out) => {
    out[0] = s.x - 0.5; out[1] = s.y - 0.5; out[2] = 0;
    out[3] = s.x + 0.5; out[4] = s.y + 0.5; out[5] = 0;
  },
});
const shot = new Float64Array(6); // the shot's box
const clock = new TickClock({ tickRate: TICK_RATE, startTick: world.serverTick });

function step(tick: number): void {
  for (const [client, player] of players) {
    const input = inputs.take(client, tick); // its next input tick; the last repeated when late
    if (input === null) continue; // nothing received yet
    world.set(player, walk(world.get(player), input));
    const view = inputs.viewTick(client); // the render tick the client showed (NaN: none)
    if (!input.fire || Number.isNaN(view)) continue;
    shot[0] = input.aimX - 0.1; shot[1] = input.aimY - 0.1; shot[2] = 0;
    shot[3] = input.aimX + 0.1; shot[4] = input.aimY + 0.1; shot[5] = 0;
    const base = Math.floor(view);
    lag.rewind(client, base, view - base, shot, (id, runner) => {
      if (Math.abs(runner.x - input.aimX) <= 0.5 && Math.abs(runner.y - input.aimY) <= 0.5) onHit(client, id);
    });
  }
  moveRunners();
  world.tick(); // stamps `tick`
  for (const runner of runners) lag.recordFrom(world, runner);
}

setInterval(() => {
  const t = now();
  clock.advance(t, step); // every due tick, in order
  server.update(t); // receive inputs, send each client its snapshot and input report
}, 1000 / TICK_RATE);
// #endregion
