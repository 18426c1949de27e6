/**
 * The channel-layer fuzz, shared by `npm run fuzz` (target `channels` in scripts/fuzz.ts) and the
 * short seeded run in `npm test` (test/channels/channel-fuzz.test.ts).
 *
 * A sender MessageConnection streams reliable messages, blocks (up to 16 KiB) and unreliable and
 * sequenced messages to a receiver over a lossy link (10% of packets lost, 5% of acks lost). A twin
 * sender streams the same kinds of traffic to a victim connection, acked by what the victim
 * accepts so that the victim's receive window keeps moving, and between the twin's packets the
 * victim is fed hostile channel data: random bytes and mutations of the twin's last packets (bit
 * flips, truncation, extension, byte overwrites, splices of two packets, edge numbers around 0,
 * 2^16, 2^31 and 2^32 − 1 written over a field: message ids and sequences). Checks:
 *
 * - the victim's readPacket never throws, nor do its steps after it (draining with `receive` as
 *   an application would, writing its next packet); a refused packet names its reason; its
 *   receive queues stay within their configured size;
 * - the receiver accepts every real packet, and gets every reliable message and block once, in
 *   order, with its exact contents (checked again after the run, once the link is made clean and
 *   the sender has nothing left in flight).
 *
 * A third connection, the block victim, is fed blocks from a peer that keeps changing its mind:
 * first fragments of the same block id declaring different sizes (so different fragment counts),
 * a fragment of the declared size now and then (a block completes at times, and the next id
 * starts), and a second block id while one is incomplete. Checks: a conflicting size or block id
 * is refused with a reason, and the bytes the block victim allocates for blocks stay within
 * 2 × (maxBlockBytes + its fragment map) over its whole life, however many packets it reads.
 *
 * Hostile bytes go only to the victims: at this layer there is no integrity check (the netcode
 * layer's AEAD is it), so a parseable mutation is legitimate input, and would legitimately change
 * what a receiver delivers. Everything is a function of the seed.
 */
import {
  Block,
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../src/channels/index.js';
import type { ReliableOrderedChannel } from '../src/channels/reliable-ordered.js';
import { prng, randomInt } from '../src/random/prng.js';
import { t } from '../src/schema/schema.js';
import { WriteStream } from '../src/serialize/write-stream.js';
import {
  guardedRead,
  guardedUpdate,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type Progress,
  recordFailure,
  runMeter,
  sameBytes,
  type TargetReport,
} from './fuzz-core.js';

export const CHANNEL_TARGET = 'channels';

const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(40) }));
const Position = defineMessage('position', t.object({ tick: t.uint32(), x: t.float(-512, 512, 0.01) }));
const factory = new MessageFactory([Chat, Position]);
const RECEIVE_QUEUE = 256;
const MAX_BLOCK = 16 * 1024;
const FRAGMENT_BYTES = 1024;
const channels = [
  {
    kind: 'reliable-ordered' as const,
    maxBlockBytes: MAX_BLOCK,
    blockFragmentBytes: FRAGMENT_BYTES,
    receiveQueueSize: RECEIVE_QUEUE,
  },
  { kind: 'unreliable-unordered' as const, receiveQueueSize: RECEIVE_QUEUE },
  { kind: 'unreliable-sequenced' as const, receiveQueueSize: RECEIVE_QUEUE },
];
/** What the block victim may allocate for blocks in its life: doubling to MAX_BLOCK, twice over. */
const BLOCK_ALLOCATION_BOUND = 2 * (MAX_BLOCK + 4 * Math.ceil(MAX_BLOCK / FRAGMENT_BYTES) + 64);
const CORPUS = 64;
/** Hostile inputs to the victim per real packet. */
const INJECTED_PER_PACKET = 8;

export interface ChannelFuzzOptions {
  readonly seed: number;
  /** Packets the victim reads (real and hostile). */
  readonly inputs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly gc?: () => void;
}

/** The bytes of block `k`: a function of k only, so the receiver can check them. */
function blockBytes(k: number): Uint8Array {
  const next = prng(0x9e3779b9 ^ k);
  const bytes = new Uint8Array(1 + randomInt(next, 16 * 1024));
  for (let i = 0; i < bytes.length; i++) bytes[i] = (next() * 256) | 0;
  return bytes;
}

export function runChannelFuzz(options: ChannelFuzzOptions): TargetReport {
  const { seed, inputs } = options;
  if (!(Number.isSafeInteger(inputs) && inputs >= 1))
    throw new RangeError('inputs must be a positive integer');
  const next = prng(seed);
  const sender = new MessageConnection({ factory, channels });
  const receiver = new MessageConnection({ factory, channels });
  // The victim's own sender, acked by what the victim accepts, so its receive window keeps moving.
  let twin = new MessageConnection({ factory, channels });
  let victim = new MessageConnection({ factory, channels });
  const report = newTargetReport({
    target: CHANNEL_TARGET,
    description: 'hostile channel data into a MessageConnection beside a checked real stream',
    seed,
    readers: ['victim', 'receiver (real)', 'block victim (conflicting sizes)'],
    corpusSize: CORPUS,
    gc: options.gc,
  });
  const [victimStats, receiverStats, blockStats] = report.readers;
  const meter = runMeter(report, inputs, options);
  const fail = (check: string, detail: string, input: Uint8Array) =>
    recordFailure(report, check, detail, report.iterations, input);
  const corpus: Uint8Array[] = [];
  const maker = new InputMaker(2048);
  let sentMessages = 0;
  let sentBlocks = 0;
  let expectedMessage = 0;
  let expectedBlock = 0;
  let now = 0;
  let tick = 0;
  const inFlight: PacketRecord[] = [];

  const receiveReal = () => {
    for (let m = receiver.receive(0); m !== null; m = receiver.receive(0)) {
      report.semanticChecks++;
      if (m.type === Block) {
        if (!sameBytes(m.value as Uint8Array, blockBytes(expectedBlock)))
          fail('block delivered intact, in order', `block ${expectedBlock}`, m.value as Uint8Array);
        expectedBlock++;
      } else {
        const n = (m.value as { n: number }).n;
        if (n !== expectedMessage)
          fail('reliable message once, in order', `got ${n}, expected ${expectedMessage}`, new Uint8Array(0));
        expectedMessage = n + 1;
      }
    }
    for (let c = 1; c < channels.length; c++) while (receiver.receive(c) !== null) {}
  };

  const step = (lossy: boolean) => {
    now += 1 / 60;
    tick++;
    if (sender.queueDepths()[0].send < 200) {
      sender.send(0, Chat, { n: sentMessages, text: `message ${sentMessages}` });
      sentMessages++;
      if (sentMessages % 97 === 0) sender.sendBlock(0, blockBytes(sentBlocks++));
    }
    // Unreliable sends only while their queues have room: while blocks fill the packets for a
    // while, these queues wait, and a full one throws at send (as it should).
    const senderQueues = sender.queueDepths();
    if (senderQueues[1].send < 256) sender.send(1, Position, { tick, x: 1 });
    if (senderQueues[2].send < 256) sender.send(2, Position, { tick, x: -1 });
    if (twin.queueDepths()[0].send < 200) {
      twin.send(0, Chat, { n: tick, text: `message ${tick}` });
      if (tick % 97 === 0) twin.sendBlock(0, blockBytes(tick));
    }
    const twinQueues = twin.queueDepths();
    if (twinQueues[1].send < 256) twin.send(1, Position, { tick, x: 1 });
    if (twinQueues[2].send < 256) twin.send(2, Position, { tick, x: -1 });
    const { data, record } = sender.writePacket(now);
    const packet = Uint8Array.from(data);
    if (!lossy || next() >= 0.1) {
      if (receiver.readPacket(packet, 0, packet.length)) {
        receiverStats.accepted++;
        if (!lossy || next() >= 0.05) inFlight.push(record);
      } else {
        receiverStats.rejected++;
        fail('real packet accepted', receiver.lastRejection ?? 'no reason', packet);
      }
      receiveReal();
    }
    // Acks arrive a little later than the packets, as over a real link.
    while (inFlight.length > 3) sender.acked(inFlight.shift()!);
  };

  /** Feeds the victim one input; true when it accepted it. */
  const feedVictim = (input: Uint8Array, origin: 'real' | 'random' | 'mutated'): boolean => {
    const where = { target: CHANNEL_TARGET, reader: 'victim', seed, mutated: origin === 'mutated' };
    const ok = guardedRead(report, where, input, () => victim.readPacket(input, 0, input.length));
    if (ok === null) return false;
    report.iterations++;
    if (ok) {
      victimStats.accepted++;
      if (origin === 'mutated') victimStats.acceptedMutated++;
      else if (origin === 'random') victimStats.acceptedRandom++;
    } else {
      victimStats.rejected++;
      const reason = victim.lastRejection;
      report.semanticChecks++;
      if (reason === null) fail('refusal names a reason', 'lastRejection is null', input);
      else {
        const key = normalizeReason(reason);
        victimStats.reasons.set(key, (victimStats.reasons.get(key) ?? 0) + 1);
      }
    }
    const drain = () => {
      for (let c = 0; c < channels.length; c++) {
        let drained = 0;
        while (victim.receive(c) !== null && drained <= RECEIVE_QUEUE) drained++;
        report.semanticChecks++;
        if (drained > RECEIVE_QUEUE) fail('victim receive queue bounded', `channel ${c}`, input);
      }
    };
    const stepWhere = { target: CHANNEL_TARGET, reader: 'victim step', seed, mutated: origin === 'mutated' };
    if (guardedUpdate(report, stepWhere, input, drain) === null) return false;
    return ok;
  };

  // The block victim: fed crafted block fragments (the wire layout of docs/channels.md).
  let blockVictim = new MessageConnection({ factory, channels });
  let blockId = 0;
  /** The size the block victim's current block was declared with (0: none begun). */
  let declared = 0;
  const forge = new WriteStream(1200);
  const forgeBlock = (id: number, total: number): Uint8Array => {
    const fragments = Math.ceil(total / FRAGMENT_BYTES);
    const count = 1; // a whole fragment fills a packet
    forge.reset();
    forge.bool(true);
    forge.int(0, 0, channels.length - 1);
    forge.bool(true); // a block entry
    forge.bits(id, 16);
    forge.int(total, 1, MAX_BLOCK);
    forge.int(count, 1, 64);
    for (let k = 0; k < count; k++) {
      const f = randomInt(next, fragments);
      forge.int(f, 0, fragments - 1);
      forge.align();
      const length = Math.min(FRAGMENT_BYTES, total - f * FRAGMENT_BYTES);
      for (let i = 0; i < length; i++) forge.writer.writeBits(i & 0xff, 8);
    }
    forge.bool(false); // no messages follow
    forge.bool(false); // no more channel entries
    return Uint8Array.from(forge.finish());
  };
  const feedBlockVictim = () => {
    const roll = next();
    // Mostly the declared size (progress), often another size, now and then the next block id.
    const size =
      declared > 0 && roll < 0.4 ? declared : declared > 0 && roll < 0.5 ? 0 : 1 + randomInt(next, MAX_BLOCK);
    const id = size === 0 ? (blockId + 1) & 0xffff : blockId;
    const total = size === 0 ? 1 + randomInt(next, MAX_BLOCK) : size;
    const input = forgeBlock(id, total);
    const conflicting = declared > 0 && (id !== blockId || total !== declared);
    const where = { target: CHANNEL_TARGET, reader: 'block victim', seed, mutated: true };
    const ok = guardedRead(report, where, input, () => blockVictim.readPacket(input, 0, input.length));
    if (ok === null) return;
    report.iterations++;
    report.mutatedInputs++;
    report.semanticChecks++;
    if (ok === conflicting)
      fail(
        'a block conflicting with the one begun is refused, any other accepted',
        `id ${id} size ${total}, begun ${blockId} of ${declared}: ${ok ? 'accepted' : blockVictim.lastRejection}`,
        input,
      );
    if (ok) {
      blockStats.accepted++;
      declared = total;
    } else {
      blockStats.rejected++;
      // Ids and sizes vary with every input: counted by the kind of reason.
      const key = normalizeReason(blockVictim.lastRejection ?? 'no reason').replace(/\d+/g, 'N');
      blockStats.reasons.set(key, (blockStats.reasons.get(key) ?? 0) + 1);
    }
    if (blockVictim.receive(0) !== null) {
      blockId = (blockId + 1) & 0xffff; // the block completed: the next id starts afresh
      declared = 0;
    }
    const allocated = (blockVictim.channels[0] as ReliableOrderedChannel).blockBytesAllocated;
    report.semanticChecks++;
    if (allocated > BLOCK_ALLOCATION_BOUND)
      fail('block buffers bounded whatever the sizes declared', `${allocated} bytes allocated`, input);
  };

  const mutate = (): Uint8Array => {
    const a = corpus[randomInt(next, corpus.length)];
    const kind = randomInt(next, 6);
    let out: Uint8Array;
    if (kind === 5) out = maker.edgeNumbers(next, a).slice();
    else if (kind === 0) {
      out = a.slice();
      const flips = 1 + randomInt(next, 3);
      for (let i = 0; i < flips && out.length > 0; i++)
        out[randomInt(next, out.length)] ^= 1 << randomInt(next, 8);
    } else if (kind === 1) out = a.slice(0, randomInt(next, a.length + 1));
    else if (kind === 2) {
      out = new Uint8Array(a.length + 1 + randomInt(next, 16));
      out.set(a);
      out.set(maker.random(next, out.length - a.length), a.length);
    } else if (kind === 3) {
      out = a.slice();
      if (out.length > 0) out[randomInt(next, out.length)] = randomInt(next, 256);
    } else {
      const b = corpus[randomInt(next, corpus.length)];
      const cut = randomInt(next, a.length + 1);
      out = new Uint8Array(cut + b.length - Math.min(cut, b.length));
      out.set(a.subarray(0, cut));
      out.set(b.subarray(Math.min(cut, b.length)), cut);
    }
    return out;
  };

  while (report.iterations < inputs && report.crash === null) {
    step(true);
    const real = twin.writePacket(now);
    // The last real packets the victim saw are what mutations start from: ids in its window.
    const copy = Uint8Array.from(real.data);
    if (corpus.length < CORPUS) corpus.push(copy);
    else corpus[tick % CORPUS] = copy;
    if (feedVictim(copy, 'real')) twin.acked(real.record);
    for (let k = 0; k < INJECTED_PER_PACKET && report.iterations < inputs && report.crash === null; k++) {
      if (k === 0) feedBlockVictim();
      else if (next() < 0.4) {
        report.randomInputs++;
        feedVictim(maker.random(next, randomInt(next, 1200)), 'random');
      } else {
        report.mutatedInputs++;
        feedVictim(mutate(), 'mutated');
      }
    }
    // The victim's own packet after what it read (its acks; what it has to send).
    const stepWhere = { target: CHANNEL_TARGET, reader: 'victim step', seed, mutated: true };
    if (guardedUpdate(report, stepWhere, copy, () => victim.writePacket(now)) === null) break;
    // A fresh victim and twin now and then: an accepted forgery can leave a victim waiting forever
    // for a message its twin saw acked (a block restarted at a forged size, say).
    if (tick % 4096 === 0) {
      twin = new MessageConnection({ factory, channels });
      victim = new MessageConnection({ factory, channels });
      blockVictim = new MessageConnection({ factory, channels });
      blockId = 0;
      declared = 0;
    }
    if ((tick & 15) === 0) meter.update(report.iterations);
  }
  // Drain: a clean link until the sender has nothing in flight, then every message must be in.
  for (let i = 0; i < 20_000 && (expectedMessage < sentMessages || expectedBlock < sentBlocks); i++) {
    now += 1 / 60;
    const { data, record } = sender.writePacket(now);
    if (receiver.readPacket(data, 0, data.length)) sender.acked(record);
    receiveReal();
  }
  report.semanticChecks++;
  if (expectedMessage !== sentMessages || expectedBlock !== sentBlocks)
    fail(
      'stream complete after the link is clean',
      `messages ${expectedMessage}/${sentMessages}, blocks ${expectedBlock}/${sentBlocks}`,
      new Uint8Array(0),
    );
  meter.finish();
  return report;
}

export function formatChannelDetails(report: TargetReport): string[] {
  const receiver = report.readers[1];
  return [
    `  real packets accepted by the receiver ${receiver.accepted.toLocaleString('en-US')}, refused ${receiver.rejected}`,
  ];
}
