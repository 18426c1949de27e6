/**
 * Where a ghost section's bits go: a bench-only second reading of each section the client takes
 * (before the mirror applies it, so its histories hold the baselines), with the same wire calls
 * as the receiver (src/replication/ghost-receiver.ts), counting bits by part.
 */
import type { CustomChannel, CustomChannelConfig } from '../../src/channels/index.js';
import { measureDelta, PreviousChanges, readDelta } from '../../src/replication/entity-delta.js';
import {
  CONFIGURATION_BITS,
  GENERATION_BITS,
  NEWEST_HELD,
  readBaseline,
  readReference,
  readUpdateCount,
  readUpdateId,
  TICK_BITS,
} from '../../src/replication/ghost-wire.js';
import type { ClientMirror } from '../../src/replication/index.js';
import type { LaneState } from '../../src/replication/lane-state.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { Cube } from './scene.js';

export interface SectionBits {
  sections: number;
  /** Tick, configuration bit (and fingerprint), list terminators. */
  head: number;
  destroys: number;
  creates: number;
  updates: number;
  /** The update count and reference baseline; per update: the id, the baseline, the state (lane flags and values). */
  more: number;
  ids: number;
  baselines: number;
  states: number;
  /** Of the states: the changed-lane set (the repeat bit, flags) alone. */
  flags: number;
  /** Of the states: per lane (by index), the bits of its changed values and how often it changed. */
  laneBits: number[];
  laneChanges: number[];
  /** The channel data of the packets read (padded to a byte): section plus framing. */
  channelBits: number;
  /** Whether sections are counted now (off for the quiet tail after the measured frames). */
  counting: boolean;
  /** Sections of older ticks (sent before the measured frames) are not counted. */
  fromTick: number;
  /** The tick of the section dissected last. */
  tick: number;
}

export const emptySectionBits = (): SectionBits => ({
  sections: 0,
  head: 0,
  destroys: 0,
  creates: 0,
  updates: 0,
  more: 0,
  ids: 0,
  baselines: 0,
  states: 0,
  flags: 0,
  laneBits: Cube.layout.lanes.map(() => 0),
  laneChanges: Cube.layout.lanes.map(() => 0),
  channelBits: 0,
  counting: true,
  fromTick: 0,
  tick: 0,
});

const probeState = Cube.layout.createState();

/**
 * Bits of each changed lane's value (the delta of a state differing from the baseline in that lane
 * alone, less the flags); returns their sum.
 */
function laneCosts(state: LaneState, baseline: LaneState | null, into: SectionBits): number {
  const layout = Cube.layout;
  const base = baseline ?? layout.zero;
  let sum = 0;
  for (let i = 0; i < layout.lanes.length; i++) {
    if (state.lanes[i] === base.lanes[i]) continue;
    probeState.lanes.set(base.lanes);
    probeState.lanes[i] = state.lanes[i];
    const bits = measureDelta(layout, probeState, baseline) - layout.lanes.length;
    into.laneBits[i] += bits;
    into.laneChanges[i]++;
    sum += bits;
  }
  return sum;
}

/** Counts one section's bits into `into`; false when it does not parse (the mirror refuses it too). */
function dissect(rs: ReadStream, mirror: ClientMirror, into: SectionBits): boolean {
  const layout = Cube.layout;
  const capacity = mirror.capacity;
  let at = rs.bitsProcessed;
  const take = () => {
    const bits = rs.bitsProcessed - at;
    at = rs.bitsProcessed;
    return bits;
  };
  const tick = rs.bits(0, TICK_BITS);
  into.tick = tick;
  if (rs.bits(0, 1) === 1) rs.bits(0, CONFIGURATION_BITS);
  into.head += take();
  while (rs.ok && rs.bool(false)) {
    rs.int(0, 0, capacity - 1);
    rs.bits(0, 1);
    into.destroys += take();
  }
  into.head += take();
  const scratch = layout.createState();
  while (rs.ok && rs.bool(false)) {
    rs.int(0, 0, capacity - 1);
    rs.int(0, 0, mirror.types.length - 1);
    rs.bits(0, GENERATION_BITS);
    readDelta(rs, layout, null, scratch);
    into.creates += take();
  }
  into.head += take();
  const count = readUpdateCount(rs, capacity);
  const reference = count > 0 ? readReference(rs, tick) : -1;
  into.more += take();
  let previous = -1;
  const changes = new PreviousChanges();
  for (let u = 0; u < count; u++) {
    const id = readUpdateId(rs, previous, capacity);
    previous = id;
    into.ids += take();
    const baselineTick = readBaseline(rs, tick, reference);
    into.baselines += take();
    const history = mirror.histories[id];
    const baseline =
      history === null || baselineTick === -1
        ? null
        : baselineTick === NEWEST_HELD
          ? history.latest
          : history.exact(baselineTick);
    if (!rs.ok || (baselineTick >= 0 && baseline === null)) return false;
    readDelta(rs, layout, baseline, scratch, changes);
    const state = take();
    into.states += state;
    into.flags += state - laneCosts(scratch, baseline, into);
    into.updates++;
  }
  into.sections++;
  return rs.ok;
}

function add(into: SectionBits, probe: SectionBits): void {
  into.sections += probe.sections;
  into.head += probe.head;
  into.destroys += probe.destroys;
  into.creates += probe.creates;
  into.updates += probe.updates;
  into.more += probe.more;
  into.ids += probe.ids;
  into.baselines += probe.baselines;
  into.states += probe.states;
  into.flags += probe.flags;
  into.channelBits += probe.channelBits;
  for (let i = 0; i < probe.laneBits.length; i++) {
    into.laneBits[i] += probe.laneBits[i];
    into.laneChanges[i] += probe.laneChanges[i];
  }
}

/**
 * The mirror's channel, wrapped so every section it reads is dissected first. The copy made per
 * section is bench-only cost, off the product's path.
 */
export function dissectingChannel(mirror: ClientMirror, into: SectionBits): CustomChannelConfig {
  const inner = mirror.channel;
  const copy = new ReadStream(2048);
  return {
    ...inner,
    create(clientIndex: number): CustomChannel {
      const channel = inner.create(clientIndex);
      return {
        select: (now, budget) => channel.select(now, budget),
        writeSelected: (ws, now, record) => channel.writeSelected(ws, now, record),
        acked: (record, start, end) => channel.acked(record, start, end),
        apply: (staged) => channel.apply(staged),
        close: () => channel.close?.(),
        read(rs, staged) {
          const reader = rs.reader;
          copy.reset(reader.input, 0, Math.ceil(reader.totalBits / 8));
          for (let skip = rs.bitsProcessed; skip > 0; skip -= Math.min(skip, 32))
            copy.bits(0, Math.min(skip, 32));
          const probe = emptySectionBits();
          probe.channelBits = reader.totalBits;
          if (into.counting && dissect(copy, mirror, probe) && probe.tick >= into.fromTick) add(into, probe);
          return channel.read(rs, staged);
        },
      };
    },
  };
}
