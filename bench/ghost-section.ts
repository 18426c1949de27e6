/**
 * `npm run build && node dist/bench/ghost-section.js [--cubes N] [--moving SHARE]`: bytes per packet of the
 * ghost section for one client on a lossless link, cubes random-walking a few quanta per tick
 * (default 900 cubes, 11% moving per tick, about the W3 scene's rate), acked every packet, after
 * a 2 s warm-up; then an idle world. A deterministic scene (seed 1), so the figures repeat.
 */

import { commandLine, flagValue, positiveIntegerFlag, rangeFlag } from '../scripts/cli.js';
import { defineMessage, MessageConnection, MessageFactory } from '../src/channels/index.js';
import { prng } from '../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  ReplicationServer,
  ServerWorld,
} from '../src/replication/index.js';
import { t } from '../src/schema/schema.js';

const Cube = defineEntity(
  'cube',
  t.object({
    position: t.vector3(t.float(-32, 32, 1 / 512)),
    orientation: t.smallestThree(9),
    rest: t.bool(),
  }),
);
type CubeValue = {
  position: [number, number, number];
  orientation: [number, number, number, number];
  rest: boolean;
};
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(4) }))]);

function run(cubes: number, moving: number, frames: number): { bytes: number; packets: number } {
  const world = new ServerWorld({ types: [Cube], capacity: Math.max(cubes, 1) });
  // What the encoding costs when every change fits: a bucket above the scene's needs (the default
  // 512 B / 256 kbit/s one holds some changes back in busy packets, which then coalesce: 235.0 B).
  const replication = new ReplicationServer({
    world,
    maxClients: 1,
    bandwidth: { bytesPerPacket: 1150, kbps: 2000 },
  });
  const mirror = new ClientMirror({ types: [Cube], capacity: Math.max(cubes, 1) });
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  const next = prng(1);
  const values: CubeValue[] = [];
  const entities: Entity<CubeValue>[] = [];
  for (let i = 0; i < cubes; i++) {
    const v: CubeValue = {
      position: [next() * 40 - 20, next() * 40 - 20, 0],
      orientation: [0, 0, 0, 1],
      rest: false,
    };
    values.push(v);
    entities.push(world.create(Cube, v));
  }
  let now = 0;
  let bytes = 0;
  let packets = 0;
  for (let f = 0; f < frames; f++) {
    for (let i = 0; i < cubes; i++) {
      if (next() >= moving) continue;
      values[i].position[0] += (next() - 0.5) * 0.05;
      values[i].position[1] += (next() - 0.5) * 0.05;
      world.set(entities[i], values[i]);
    }
    world.tick();
    now += 1 / 60;
    const { data, record } = server.writePacket(now);
    if (f >= 120) {
      bytes += data.length;
      packets++;
    }
    if (!client.readPacket(data, 0, data.length)) throw new Error(client.lastRejection ?? 'refused');
    server.acked(record);
  }
  return { bytes, packets };
}

const args = commandLine({
  name: 'node dist/bench/ghost-section.js',
  description: 'Bytes per packet of the ghost section for one client on a lossless link, then an idle world.',
  flags: {
    cubes: { arg: 'N', help: 'cubes in the world (default 900)' },
    moving: { arg: 'SHARE', help: 'share of cubes moving per tick, 0 to 1 (default 0.11)' },
  },
});
const cubes = flagValue(() => positiveIntegerFlag('--cubes', args.cubes, 900));
const moving = flagValue(() => rangeFlag('--moving', args.moving, 0.11, 0, 1));
const busy = run(cubes, moving, 720);
console.log(
  `${cubes} cubes, ${(moving * 100).toFixed(0)}% moving per tick: ${(busy.bytes / busy.packets).toFixed(1)} bytes per packet (channel data, ${busy.packets} packets)`,
);
const idle = run(cubes, 0, 240);
console.log(`idle: ${(idle.bytes / idle.packets).toFixed(1)} bytes per packet`);
