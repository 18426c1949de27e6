/**
 * What a client pays per received packet for replication: the ghost sections one player of a demo
 * arena room (bench/suites/arena-rooms.ts: 64 players, 400 orbs, 40 m interest) received, recorded
 * once, then replayed into a fresh mirror round after round — a ClientMirror (a game client: values
 * rebuilt) and the load tester's light mirror (a light bot: states only). Each replay reads and
 * applies every section in order (read, then apply, as the channel layer does); once into one
 * mirror, and once into 64 fed section by section, as a bot process's mirrors are (their states
 * no longer fit the caches, which is what a light bot pays).
 *
 * Measured: process CPU time (user + system, so GC helper threads count) per replay, as µs per
 * packet and ns per entity received (creates + updates); contestants alternate round by round and
 * the median is quoted. CPU time, not wall time: the machine may be shared.
 */

import { LightMirror } from '../../scripts/loadtest-light-mirror.js';
import type { CustomChannel } from '../../src/channels/channel.js';
import type { CustomChannelConfig } from '../../src/channels/config.js';
import { ScratchList } from '../../src/channels/scratch-list.js';
import { ClientMirror } from '../../src/replication/index.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { CAPACITY, types } from '../../tools/live-arena.js';
import { check, collectGarbage, fmt, median, type SuiteContext } from '../harness.js';
import { measureArenaRooms } from './arena-rooms.js';

/** One received ghost section: the packet's bytes as the channel layer read them, and where the section starts. */
interface Section {
  readonly bytes: Uint8Array;
  readonly startBit: number;
}

/** The fields of BitReader a recording copies (private: a bench may look). */
interface ReaderInternals {
  readonly bytes: Uint8Array;
  readonly numBits: number;
}

/** Wraps a mirror's channel so every section it reads is copied into `sections` first. */
function recording(config: CustomChannelConfig, sections: Section[]): CustomChannelConfig {
  return {
    ...config,
    create(clientIndex: number): CustomChannel {
      const inner = config.create(clientIndex);
      return {
        select: (now, budgetBits) => inner.select(now, budgetBits),
        writeSelected: (ws, now, record) => inner.writeSelected(ws, now, record),
        acked: (record, start, end) => inner.acked(record, start, end),
        apply: (staged) => inner.apply(staged),
        read(rs, staged) {
          const reader = rs.reader as unknown as ReaderInternals;
          sections.push({ bytes: reader.bytes.slice(0, reader.numBits >>> 3), startBit: rs.bitsProcessed });
          return inner.read(rs, staged);
        },
      };
    },
  };
}

/** The ghost sections bot 0 of one arena room received from its join through `frames` steady frames. */
export async function recordArenaSections(frames: number): Promise<Section[]> {
  const sections: Section[] = [];
  await measureArenaRooms(1, frames, 13, (bot, channel) =>
    bot === 0 ? recording(channel, sections) : channel,
  );
  return sections;
}

/** A mirror as the replay drives it. */
interface Mirror extends CustomChannel {
  reset(): unknown;
}

/**
 * Reads and applies every section into each of `mirrors`, section by section, as a process of
 * that many clients would; returns the entities received.
 */
function replay(
  mirrors: readonly Mirror[],
  sections: readonly Section[],
  rs: ReadStream,
  staged: ScratchList<unknown>,
): number {
  let entities = 0;
  for (const section of sections) {
    for (const mirror of mirrors) {
      rs.reset(section.bytes);
      for (let skip = section.startBit; skip > 0; skip -= 32) rs.bits(0, Math.min(32, skip));
      staged.clear();
      if (!mirror.read(rs, staged)) continue;
      mirror.apply(staged);
      const r = staged.items[0] as { creates: { length: number }; updates: { length: number } };
      entities += r.creates.length + r.updates.length;
    }
  }
  return entities;
}

export interface ClientDecodeResult {
  readonly name: string;
  readonly usPerPacket: number;
  readonly nsPerEntity: number;
}

/** Replays `sections` `rounds` times into each contestant, alternating; medians of CPU time. */
/**
 * Replays `sections` `rounds` times into each contestant's `clients` mirrors (one: a game client;
 * many: a bot process, whose mirrors do not all fit the caches), alternating; medians of CPU time.
 */
export function measureClientDecode(
  sections: readonly Section[],
  rounds: number,
  clients = 1,
): ClientDecodeResult[] {
  const rs = new ReadStream();
  const staged = new ScratchList<unknown>();
  const many = <T>(make: () => T): T[] => Array.from({ length: clients }, make);
  const contestants: { name: string; mirrors: Mirror[]; samples: number[]; entities: number }[] = [
    {
      name: 'ClientMirror',
      mirrors: many(() => new ClientMirror({ types, capacity: CAPACITY })),
      samples: [],
      entities: 0,
    },
    {
      name: 'LightMirror (light bot)',
      mirrors: many(() => new LightMirror(types, CAPACITY)),
      samples: [],
      entities: 0,
    },
  ];
  for (let round = -2; round < rounds; round++) {
    for (const c of contestants) {
      collectGarbage();
      for (const mirror of c.mirrors) mirror.reset();
      const before = process.cpuUsage();
      const entities = replay(c.mirrors, sections, rs, staged);
      const used = process.cpuUsage(before);
      check(entities > 0, `${c.name}: no section applied`);
      check(c.entities === 0 || c.entities === entities, `${c.name}: replays disagree`);
      c.entities = entities;
      if (round >= 0) c.samples.push(used.user + used.system);
    }
  }
  check(contestants[0].entities === contestants[1].entities, 'the mirrors received different entities');
  return contestants.map((c) => {
    const us = median(c.samples);
    return {
      name: c.name,
      usPerPacket: us / sections.length / clients,
      nsPerEntity: (us * 1000) / c.entities,
    };
  });
}

export async function runClientDecode(ctx: SuiteContext): Promise<void> {
  const frames = Number(process.env.GW_DECODE_FRAMES ?? (ctx.options.quick ? 100 : 300));
  const rounds = Number(process.env.GW_DECODE_ROUNDS ?? (ctx.options.quick ? 10 : 40));
  const sections = await recordArenaSections(frames);
  check(sections.length > frames / 2, `only ${sections.length} sections recorded`);
  const clients = Number(process.env.GW_DECODE_CLIENTS ?? 64);
  const manyRounds = Math.max(3, Math.round(rounds / 8));
  const one = measureClientDecode(sections, rounds);
  const many = measureClientDecode(sections, manyRounds, clients);
  for (const [results, what] of [
    [one, `one mirror, median of ${rounds} replays`],
    [many, `${clients} mirrors fed section by section (a bot process), median of ${manyRounds} replays`],
  ] as const)
    for (const r of results)
      ctx.note(
        `client decode, ${r.name}: ${fmt(r.usPerPacket)} µs CPU per packet, ${fmt(r.nsPerEntity)} ns per entity (${sections.length} arena sections of one player; ${what})`,
      );
  ctx.record('clientDecode', { sections: sections.length, rounds, clients, one, many });
}
