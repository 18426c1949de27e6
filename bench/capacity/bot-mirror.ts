/**
 * `node dist/bench/capacity/bot-mirror.js`: what a load-test bot spends reading the arena's state
 * packets, light (scripts/loadtest-light-mirror.ts) against full (ClientMirror), on the same packets.
 * One arena (tools/live-arena.ts, 20 Hz, 8 players spread over it) replicates to 8 in-memory
 * connections per kind; the bots' readPacket is timed in CPU (process.cpuUsage), the kinds
 * alternating in rounds, medians quoted: a figure that holds on a loaded machine.
 */

import { arenaFactory } from '../../demo/arena-room.js';
import { LightMirror } from '../../scripts/loadtest-light-mirror.js';
import { MessageConnection } from '../../src/channels/index.js';
import { ClientMirror } from '../../src/replication/index.js';
import { Arena, CAPACITY, types } from '../../tools/live-arena.js';

const PLAYERS = 8;
const TICKS_PER_ROUND = 100;
const ROUNDS = 9;

type Kind = 'light' | 'full';
const arena = new Arena(1, { tickRate: 20, maxClients: PLAYERS });
const pairs = (['light', 'full'] as const).flatMap((kind) =>
  Array.from({ length: PLAYERS }, (_, i) => {
    const mirror =
      kind === 'light' ? new LightMirror(types, CAPACITY) : new ClientMirror({ types, capacity: CAPACITY });
    return {
      kind: kind as Kind,
      index: i,
      mirror,
      client: new MessageConnection({ factory: arenaFactory, channels: [mirror.channel], clientIndex: i }),
    };
  }),
);
// One server connection per player index, its packets read by a light and a full bot alike.
const servers = Array.from(
  { length: PLAYERS },
  (_, i) =>
    new MessageConnection({ factory: arenaFactory, channels: [arena.replication.channel], clientIndex: i }),
);
for (let i = 0; i < PLAYERS; i++) arena.avatarOf(i, i);

let now = 0;
const cpu: Record<Kind, number[]> = { light: [], full: [] };
let sections = 0;
for (let round = 0; round < ROUNDS + 1; round++) {
  const spent: Record<Kind, number> = { light: 0, full: 0 };
  for (let t = 0; t < TICKS_PER_ROUND; t++) {
    now += 1 / 20;
    arena.advance(now, () => {});
    for (let i = 0; i < PLAYERS; i++) {
      const { data, record } = servers[i].writePacket(now);
      const bytes = data.slice();
      // Alternate which kind reads first, so neither always meets a warm cache.
      const order: Kind[] = (round + t) % 2 === 0 ? ['light', 'full'] : ['full', 'light'];
      for (const kind of order) {
        const pair = pairs[(kind === 'light' ? 0 : PLAYERS) + i];
        const before = process.cpuUsage();
        const ok = pair.client.readPacket(bytes, 0, bytes.length);
        const used = process.cpuUsage(before);
        if (!ok) throw new Error(`${kind} bot refused a packet: ${pair.client.lastRejection}`);
        spent[kind] += used.user + used.system;
      }
      servers[i].acked(record);
      sections++;
    }
  }
  if (round === 0) continue; // warm-up
  for (const kind of ['light', 'full'] as const) cpu[kind].push(spent[kind] / (TICKS_PER_ROUND * PLAYERS));
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (const i of [0, PLAYERS - 1]) {
  const light = pairs[i].mirror;
  const full = pairs[PLAYERS + i].mirror;
  if (light.sectionsApplied !== full.sectionsApplied || light.newestTick !== full.newestTick)
    throw new Error('the light and full bots applied different sections');
}
console.log(
  `per state packet read (${sections} packets, ${ROUNDS} rounds, medians): light ${median(cpu.light).toFixed(1)} µs · full ${median(cpu.full).toFixed(1)} µs (light ÷ full ${(median(cpu.light) / median(cpu.full)).toFixed(2)})`,
);
