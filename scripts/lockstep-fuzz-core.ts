/**
 * The peer-to-peer session fuzz, shared by `npm run fuzz` (target `lockstep` in scripts/fuzz.ts)
 * and the short seeded run in `npm test` (test/p2p/lockstep-fuzz.test.ts).
 *
 * Two pairs of real sessions on LocalPeerLinks over a MemoryNetwork: a LockstepSession pair and a
 * RollbackSession pair. In each, peer 1 (the twin) plays honestly, and peer 0 (the victim) also
 * receives, from peer 1's links, hostile datagrams: random bytes, mutations of the twin's recent
 * datagrams, and those datagrams with an edge number (around 0, 2^16, 2^31, 2^32 − 1) written
 * over a field (packet sequences and acks, turns, frames, counts). The victim runs its game loop
 * after them (`update`, `pollEvent`, `stats`; for rollback `addLocalInput` and `advanceFrame`).
 * Check: none of it throws (the links carry no integrity check, so a parseable forgery is
 * legitimate input from peer 1 and may stall or desync the pair; the pairs are rebuilt every
 * PAIR_LIFE steps). Everything is a function of the seed.
 */
import { LocalPeerLinks } from '../src/lockstep/local-peer-links.js';
import { LockstepSession } from '../src/lockstep/lockstep-session.js';
import type { RollbackGame } from '../src/lockstep/rollback-options.js';
import { RollbackSession } from '../src/lockstep/rollback-session.js';
import { prng, randomInt } from '../src/random/prng.js';
import { t } from '../src/schema/schema.js';
import { MemoryNetwork } from '../src/transport/memory-transport.js';
import {
  guardedUpdate,
  InputMaker,
  newTargetReport,
  type Progress,
  runMeter,
  type TargetReport,
} from './fuzz-core.js';

export const LOCKSTEP_TARGET = 'lockstep';

const Order = t.object({ x: t.int(0, 63), n: t.uint32() });
type OrderValue = { x: number; n: number };
const Pad = t.object({ dx: t.int(-1, 1), n: t.uint32() });
type PadValue = { dx: number; n: number };
const IDLE: PadValue = { dx: 0, n: 0 };
const CORPUS = 8;
const INJECTED_PER_STEP = 8;
/** Steps between fresh pairs: a forgery (a sequence far ahead, say) often stalls one within a second. */
const PAIR_LIFE = 120;
const STEP = 1 / 60;

export interface LockstepFuzzOptions {
  readonly seed: number;
  /** Hostile datagrams the victims receive. */
  readonly inputs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly gc?: () => void;
}

const mix = (h: number, x: number) => Math.imul(h ^ (x >>> 0), 0x01000193) >>> 0;

/** Two peers on loopback links; peer 1's datagrams to peer 0 are kept as the mutation corpus. */
function links(corpus: Uint8Array[]) {
  const network = new MemoryNetwork();
  const transports = [0, 1].map(() => network.createTransport());
  const addresses = transports.map((tr) => tr.localAddress);
  const pair = transports.map((transport, self) => new LocalPeerLinks({ transport, self, addresses }));
  const send = pair[1].send.bind(pair[1]);
  pair[1].send = (peer, data) => {
    if (peer === 0 && data.length > 0) {
      corpus.push(data.slice());
      if (corpus.length > CORPUS) corpus.shift();
    }
    send(peer, data);
  };
  return { pair, inject: (data: Uint8Array) => send(0, data) };
}

function lockstepPair(seed: number, corpus: Uint8Array[]) {
  const { pair, inject } = links(corpus);
  const sessions = pair.map((peerLinks) => {
    let hash = 0x811c9dc5;
    return new LockstepSession<OrderValue>({
      links: peerLinks,
      command: Order,
      seed,
      members: [0, 1],
      maxCommandsPerTurn: 4,
      turnMs: 50,
      // Every hostile datagram parsed, not dropped by the flood limit.
      maxDatagramsPerSecond: 100_000,
      game: {
        executeTurn(turn, commands) {
          hash = mix(hash, turn);
          for (const orders of commands) for (const o of orders) hash = mix(mix(hash, o.x), o.n);
        },
        checksum: () => hash,
      },
    });
  });
  return { sessions, inject };
}

class HashGame implements RollbackGame<PadValue, { h: number }> {
  h = 0x811c9dc5;
  save(_frame: number, reuse: { h: number } | undefined): { h: number } {
    const state = reuse ?? { h: 0 };
    state.h = this.h;
    return state;
  }
  load(state: { h: number }): void {
    this.h = state.h;
  }
  advance(inputs: readonly PadValue[], frame: number): void {
    this.h = mix(this.h, frame);
    for (const input of inputs) this.h = mix(mix(this.h, input.dx + 1), input.n);
  }
  checksum(state: { h: number }): number {
    return state.h;
  }
}

function rollbackPair(corpus: Uint8Array[]) {
  const { pair, inject } = links(corpus);
  const sessions = pair.map(
    (peerLinks) =>
      new RollbackSession<PadValue, { h: number }>({
        links: peerLinks,
        input: Pad,
        initialInput: IDLE,
        game: new HashGame(),
        checksumInterval: 10,
        // Every hostile datagram parsed, not dropped by the rate limit.
        maxPacketsPerSecond: 100_000,
      }),
  );
  return { sessions, inject };
}

export function runLockstepFuzz(options: LockstepFuzzOptions): TargetReport {
  const { seed, inputs } = options;
  if (!(Number.isSafeInteger(inputs) && inputs >= 1))
    throw new RangeError('inputs must be a positive integer');
  const next = prng(seed);
  const report = newTargetReport({
    target: LOCKSTEP_TARGET,
    description: 'hostile peer datagrams into a LockstepSession and a RollbackSession beside an honest peer',
    seed,
    readers: ['lockstep victim', 'rollback victim'],
    corpusSize: 2 * CORPUS,
    gc: options.gc,
  });
  const [lockStats, rollStats] = report.readers;
  const meter = runMeter(report, inputs, options);
  const maker = new InputMaker(2048);
  const lockCorpus: Uint8Array[] = [];
  const rollCorpus: Uint8Array[] = [];
  let lock = lockstepPair(seed, lockCorpus);
  let roll = rollbackPair(rollCorpus);
  let lastHostile: Uint8Array = new Uint8Array(0);
  let now = 0;
  let steps = 0;
  let n = 0;
  const guarded = (reader: string, run: () => void) =>
    guardedUpdate(report, { target: LOCKSTEP_TARGET, reader, seed, mutated: true }, lastHostile, run) !==
    null;

  const hostile = (corpus: Uint8Array[], inject: (data: Uint8Array) => void) => {
    const roll = next();
    let data: Uint8Array;
    if (corpus.length === 0 || roll < 0.15) {
      report.randomInputs++;
      data = maker.random(next, randomInt(next, 200));
    } else {
      report.mutatedInputs++;
      const base = corpus[corpus.length - 1 - randomInt(next, Math.min(3, corpus.length))];
      data =
        roll < 0.6
          ? maker.edgeNumbers(next, base)
          : maker.mutate(next, base, corpus[randomInt(next, corpus.length)]);
    }
    lastHostile = data.slice();
    inject(lastHostile);
    report.iterations++;
  };

  /** The victims' refusals of peer 1's packets, into the report (a pair's, before it goes). */
  const tally = () => {
    const lockPeer = lock.sessions[0].stats().peers[1];
    lockStats.rejected += lockPeer.refused;
    const why = lock.sessions[0].stats().lastRefusal;
    if (why !== null) lockStats.reasons.set(`last: ${why}`, (lockStats.reasons.get(`last: ${why}`) ?? 0) + 1);
    const rollPeer = roll.sessions[0].stats.peers[1];
    rollStats.accepted += rollPeer.packetsReceived; // the honest peer's among them
    rollStats.rejected += rollPeer.packetsInvalid;
    if (rollPeer.packetsInvalid > 0)
      rollStats.reasons.set(
        'not a packet',
        (rollStats.reasons.get('not a packet') ?? 0) + rollPeer.packetsInvalid,
      );
    for (const [reason, count] of Object.entries(rollPeer.refused)) {
      if (count === 0) continue;
      rollStats.rejected += count;
      rollStats.reasons.set(reason, (rollStats.reasons.get(reason) ?? 0) + count);
    }
  };

  while (report.iterations < inputs && report.crash === null) {
    now += STEP;
    steps++;
    if (steps % PAIR_LIFE === 0) {
      tally();
      for (const s of [...lock.sessions, ...roll.sessions]) s.close();
      lock = lockstepPair(seed, lockCorpus);
      roll = rollbackPair(rollCorpus);
    }
    // The lockstep pair: the twin queues orders; both run their loop (the victim after the hostile
    // datagrams of the previous step).
    const [lockVictim, lockTwin] = lock.sessions;
    // (Queued within maxCommandsPerTurn: more is the caller's error, which throws.)
    if (next() < 0.3 && lockTwin.queued < 4)
      lockTwin.queue({ x: randomInt(next, 64), n: (n++ * 2654435761) >>> 0 });
    if (next() < 0.2 && lockVictim.queued < 4) lockVictim.queue({ x: randomInt(next, 64), n: n++ });
    const lockOk = guarded(lockStats.name, () => {
      lockVictim.update(now);
      while (lockVictim.pollEvent() !== null) {}
      lockVictim.stats();
    });
    if (!lockOk) break;
    lockTwin.update(now);
    while (lockTwin.pollEvent() !== null) {}
    // The rollback pair: each peer adds its input, advances a frame and updates.
    const [rollVictim, rollTwin] = roll.sessions;
    const rollOk = guarded(rollStats.name, () => {
      rollVictim.addLocalInput({ dx: randomInt(next, 3) - 1, n: n++ });
      rollVictim.advanceFrame();
      rollVictim.update(now);
      while (rollVictim.pollEvent() !== null) {}
    });
    if (!rollOk) break;
    rollTwin.addLocalInput({ dx: randomInt(next, 3) - 1, n: (n++ * 40503) >>> 0 });
    rollTwin.advanceFrame();
    rollTwin.update(now);
    while (rollTwin.pollEvent() !== null) {}
    for (let k = 0; k < INJECTED_PER_STEP && report.iterations < inputs; k++) {
      if (k % 2 === 0) hostile(lockCorpus, lock.inject);
      else hostile(rollCorpus, roll.inject);
    }
    report.semanticChecks++;
    if ((steps & 15) === 0) meter.update(report.iterations);
  }
  // The last hostile datagrams are read too.
  if (report.crash === null) {
    now += STEP;
    guarded(lockStats.name, () => lock.sessions[0].update(now));
    guarded(rollStats.name, () => roll.sessions[0].update(now));
    tally();
  }
  meter.finish();
  return report;
}
