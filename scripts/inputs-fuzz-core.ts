/**
 * The input channel fuzz, shared by `npm run fuzz` (target `inputs` in scripts/fuzz.ts) and the
 * short seeded run in `npm test` (test/latency/latency-inputs-fuzz.test.ts).
 *
 * One InputReceiver serves two connections: a real InputSender over a lossy link (10% of packets
 * and 5% of acks lost), and a victim connection fed the packets of a twin InputSender and, between
 * them, hostile ones: random bytes, mutations of the twin's recent packets, those packets with an
 * edge number (around 0, 2^16, 2^31, 2^32 − 1) written over a field, and packets of a hostile
 * InputSender whose ticks end at such an edge. A victim InputSender reads the server's reports the
 * same way. The server's ticks start below 0, 2^16 or 2^31 (by the seed) and cross it. Checks on
 * every input:
 *
 * - no reader throws, and no server step after it (`take`, writing the next packet: what
 *   MessageServer.update does) throws; a refusal names a reason and changes nothing (the
 *   buffer's counters, its cursor and view tick; the sender's depth, lead correction and reports);
 * - after an accepted input the victim's buffer holds no more new inputs than the window and the
 *   flood bucket allow, and what `take` returns is a value of the schema;
 * - the real connection consumes, once past its start, exactly the inputs its sender pushed in the
 *   ticks it held them (a repeat only when starved).
 *
 * Everything is a function of the seed.
 */
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../src/channels/index.js';
import { InputReceiver, InputSender } from '../src/latency/index.js';
import { prng, randomInt } from '../src/random/prng.js';
import { compile } from '../src/schema/codec.js';
import { t } from '../src/schema/schema.js';
import {
  EDGE_NUMBERS,
  guardedRead,
  guardedUpdate,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type Progress,
  recordFailure,
  runMeter,
  type TargetReport,
} from './fuzz-core.js';

export const INPUTS_TARGET = 'inputs';

const Input = t.object({
  x: t.float(-1, 1, 1 / 128),
  y: t.float(-1, 1, 1 / 128),
  fire: t.bool(),
  aim: t.int(0, 1023),
});
type In = { x: number; y: number; fire: boolean; aim: number };
const codec = compile(Input);
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const WINDOW = 32;
const CORPUS = 8;
const INJECTED_PER_PACKET = 8;
/** Where the server's ticks start, by the seed: each crosses an edge early in the run. */
const START_TICKS = [0, 2 ** 16 - 300, 2 ** 31 - 300];

export interface InputsFuzzOptions {
  readonly seed: number;
  /** Packets the victims read (real and hostile). */
  readonly inputs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly gc?: () => void;
}

export function runInputsFuzz(options: InputsFuzzOptions): TargetReport {
  const { seed, inputs } = options;
  if (!(Number.isSafeInteger(inputs) && inputs >= 1))
    throw new RangeError('inputs must be a positive integer');
  const next = prng(seed);
  const receiver = new InputReceiver({ schema: Input, tickRate: 60, maxClients: 2, windowTicks: WINDOW });
  const connect = (sender: InputSender<In>, clientIndex: number) => ({
    server: new MessageConnection({ factory, channels: [receiver.channel], clientIndex }),
    client: new MessageConnection({ factory, channels: [sender.channel], clientIndex }),
  });
  const real = new InputSender<In>({ schema: Input });
  const realLink = connect(real, 0);
  const twin = new InputSender<In>({ schema: Input });
  const victimLink = connect(twin, 1);
  // Writes packets of ticks ending at an edge, as the victim's connection would.
  const edgeSender = new InputSender<In>({ schema: Input });
  const edgeLink = new MessageConnection({ factory, channels: [edgeSender.channel], clientIndex: 1 });
  const report = newTargetReport({
    target: INPUTS_TARGET,
    description:
      'hostile input entries into an InputReceiver and reports into an InputSender beside a real stream',
    seed,
    readers: ['victim buffer', 'victim sender', 'real buffer'],
    corpusSize: CORPUS,
    gc: options.gc,
  });
  const [bufferStats, senderStats, realStats] = report.readers;
  const meter = runMeter(report, inputs, options);
  const fail = (check: string, detail: string, input: Uint8Array) =>
    recordFailure(report, check, detail, report.iterations, input);
  const maker = new InputMaker(2048);
  const upCorpus: Uint8Array[] = [];
  const downCorpus: Uint8Array[] = [];
  const pushed = new Map<number, string>();
  let now = 0;
  const start = START_TICKS[seed % START_TICKS.length];
  let tick = start;
  let takes = 0;
  let lastHostile: Uint8Array = new Uint8Array(0);
  let starvedSeen = 0;
  const inputOf = (): In => ({
    x: next() * 2 - 1,
    y: next() < 0.7 ? 0 : next() * 2 - 1,
    fire: next() < 0.2,
    aim: randomInt(next, 1024),
  });
  const bufferPrint = () =>
    `${JSON.stringify(receiver.stats(1))} ${receiver.lastInputTick(1)} ${receiver.viewTick(1)}`;
  const senderPrint = () =>
    `${twin.bufferDepth} ${twin.leadAdjustTicks} ${twin.stats.feedbacks} ${twin.appliedInputTick(tick)}`;

  const feed = (input: Uint8Array, origin: 'real' | 'random' | 'mutated', up: boolean): boolean => {
    const connection = up ? victimLink.server : victimLink.client;
    const stats = up ? bufferStats : senderStats;
    const print = up ? bufferPrint : senderPrint;
    const before = print();
    const where = { target: INPUTS_TARGET, reader: stats.name, seed, mutated: origin === 'mutated' };
    if (origin !== 'real') lastHostile = input;
    const ok = guardedRead(report, where, input, () => connection.readPacket(input, 0, input.length));
    if (ok === null) return false;
    report.iterations++;
    report.semanticChecks++;
    if (ok) {
      stats.accepted++;
      if (origin === 'mutated') stats.acceptedMutated++;
      else if (origin === 'random') stats.acceptedRandom++;
      const s = receiver.stats(1);
      if (up && s !== null && s.received > 2 * WINDOW + takes * 2 + 1)
        fail(
          'new inputs stay within the window and the flood bucket',
          `${s.received} after ${takes} takes`,
          input,
        );
    } else {
      stats.rejected++;
      const reason = connection.lastRejection;
      if (reason === null) fail('refusal names a reason', 'lastRejection is null', input);
      else {
        const key = normalizeReason(reason).replace(/\d+/g, 'N');
        stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
      }
      report.semanticChecks++;
      if (print() !== before) fail('a refused entry changes nothing', reason ?? 'no reason', input);
    }
    return ok;
  };

  /** A packet of 1..4 inputs whose newest tick is an edge number (the sender starts afresh). */
  const edgePacket = (): Uint8Array => {
    const last = EDGE_NUMBERS[randomInt(next, EDGE_NUMBERS.length)];
    const count = Math.min(last + 1, 1 + randomInt(next, 4));
    edgeSender.reset();
    for (let k = last - count + 1; k <= last; k++) edgeSender.push(k, inputOf(), k - next() * 4);
    return edgeLink.writePacket(now).data.slice();
  };

  const hostile = (corpus: Uint8Array[], up: boolean) => {
    const roll = next();
    if (corpus.length === 0 || roll < 0.2) {
      report.randomInputs++;
      feed(maker.random(next, randomInt(next, 200)), 'random', up);
      return;
    }
    report.mutatedInputs++;
    const base = corpus[corpus.length - 1 - randomInt(next, Math.min(3, corpus.length))];
    if (roll < 0.35) feed(maker.edgeNumbers(next, base), 'mutated', up);
    else if (up && roll < 0.45) feed(edgePacket(), 'mutated', up);
    else feed(maker.mutate(next, base, corpus[randomInt(next, corpus.length)]), 'mutated', up);
  };
  /** A server step after hostile input: it must not throw (null: the crash is recorded). */
  const serverStep = <R>(reader: string, step: () => R): { value: R } | null =>
    guardedUpdate(report, { target: INPUTS_TARGET, reader, seed, mutated: true }, lastHostile, step);

  const keep = (corpus: Uint8Array[], bytes: Uint8Array) => {
    if (bytes.length <= 1) return;
    corpus.push(bytes);
    if (corpus.length > CORPUS) corpus.shift();
  };

  const inFlight: PacketRecord[] = [];
  // The server's tick before any input (null: nothing to take yet): input ticks are judged by it.
  receiver.take(0, start);
  while (report.iterations < inputs && report.crash === null) {
    now += 1 / 60;
    tick++;
    // The real client: its packet is lost 10% of the time, its ack 5%; acks trail by 3 packets.
    const value = real.push(tick, inputOf(), tick - 2 - next() * 8);
    pushed.set(tick, JSON.stringify(value));
    pushed.delete(tick - 256);
    const up = realLink.client.writePacket(now);
    const upBytes = up.data.slice();
    if (next() >= 0.1) {
      if (realLink.server.readPacket(upBytes, 0, upBytes.length)) {
        realStats.accepted++;
        if (next() >= 0.05) inFlight.push(up.record);
      } else {
        realStats.rejected++;
        fail('real packets are accepted', realLink.server.lastRejection ?? 'no reason', upBytes);
      }
    }
    while (inFlight.length > 3) realLink.client.acked(inFlight.shift()!);
    if (tick > start + 8) {
      const realTake = serverStep('real take', () => receiver.take(0, tick));
      if (realTake === null) break;
      const taken = realTake.value;
      const s = receiver.stats(0)!;
      const starved = s.starved > starvedSeen;
      starvedSeen = s.starved;
      report.semanticChecks++;
      if (taken !== null && !starved && JSON.stringify(taken) !== pushed.get(receiver.lastInputTick(0)))
        fail('the real buffer consumes the inputs pushed', `tick ${receiver.lastInputTick(0)}`, upBytes);
      const down = serverStep('real update', () => {
        const { data, record } = realLink.server.writePacket(now);
        return { bytes: data.slice(), record };
      });
      if (down === null) break;
      const { bytes: downBytes, record } = down.value;
      if (realLink.client.readPacket(downBytes, 0, downBytes.length)) realLink.server.acked(record);
    }
    // The victim: its twin's real packets, then hostile ones, in both directions.
    twin.push(tick, inputOf(), tick - 1);
    const twinUp = victimLink.client.writePacket(now);
    const twinBytes = twinUp.data.slice();
    keep(upCorpus, twinBytes);
    if (feed(twinBytes, 'real', true)) victimLink.client.acked(twinUp.record);
    const victimTake = serverStep('victim take', () => receiver.take(1, tick));
    if (victimTake === null) break;
    const victimTaken = victimTake.value;
    takes++;
    if (victimTaken !== null) {
      report.semanticChecks++;
      try {
        codec.measure(victimTaken);
      } catch (error) {
        fail('take returns a value of the schema', String(error), twinBytes);
      }
    }
    const twinDown = serverStep('victim update', () => {
      const { data, record } = victimLink.server.writePacket(now);
      return { bytes: data.slice(), record };
    });
    if (twinDown === null) break;
    const { bytes: downBytes, record } = twinDown.value;
    keep(downCorpus, downBytes);
    if (feed(downBytes, 'real', false)) victimLink.server.acked(record);
    for (let k = 0; k < INJECTED_PER_PACKET && report.iterations < inputs && report.crash === null; k++)
      hostile(k % 2 === 0 ? upCorpus : downCorpus, k % 2 === 0);
    if ((tick & 15) === 0) meter.update(report.iterations);
  }
  meter.finish();
  return report;
}
