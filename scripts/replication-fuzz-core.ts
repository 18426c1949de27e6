/**
 * The replication fuzz, shared by `npm run fuzz` (target `replication` in scripts/fuzz.ts) and the
 * short seeded run in `npm test` (test/replication/replication-fuzz.test.ts).
 *
 * One ServerWorld (cubes and tags: scalar lanes, a string blob, and a tag's owner-only `secret`
 * part, its owner changed at random so parts are granted and withdrawn) is created in, set and
 * destroyed at random every tick, and one ReplicationServer feeds two connections: a real
 * ClientMirror over a lossy link (10% of packets lost, 5% of acks lost), and a victim ClientMirror
 * whose twin connection is acked by what the victim accepts. Between the twin's packets the victim
 * reads hostile packets: random bytes and mutations (bit flips, truncations, splices, ...) of the
 * twin's last real ghost sections. Checks on every input:
 *
 * - the victim's readPacket never throws; a refusal names a reason and leaves the victim's ghosts
 *   exactly as they were (a fingerprint of ids, generations, types, ticks and lanes);
 * - after an accepted input every ghost's value quantizes back to its newest lanes, and the mirror
 *   holds no more ghosts than its capacity (and counts them right);
 * - the real mirror accepts every real packet, and once the link is clean it converges to the
 *   world: the same entities, generations and (quantized) values, each tag's secret defined
 *   exactly when the real client owns the tag;
 * - a mirror whose capacity differs from the server's, fed the twin's real sections, refuses
 *   every one, saying the configuration differs (or, once the twin stopped sending its
 *   fingerprint, that none was checked), and holds nothing.
 *
 * - events ride the sections too (the world emits global and entity events, reliable or not):
 *   a refused section dispatches none, and an accepted one dispatches an entity event only with
 *   its ghost in the mirror; the real mirror gets every reliable global event once, in order.
 *
 * An accepted forgery may carry a tick far ahead, after which the victim refuses its twin's real
 * sections as stale: the victim and its twin are replaced then, and now and then anyway. Everything is a function
 * of the seed.
 */
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../src/channels/index.js';
import { prng, randomInt } from '../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  type Entity,
  owner,
  type ReceivedEvent,
  ReplicationServer,
  ServerWorld,
} from '../src/replication/index.js';
import type { LaneState } from '../src/replication/lane-state.js';
import { sameState } from '../src/replication/lane-state.js';
import { t } from '../src/schema/schema.js';
import {
  guardedRead,
  InputMaker,
  newTargetReport,
  normalizeReason,
  type Progress,
  recordFailure,
  runMeter,
  type TargetReport,
} from './fuzz-core.js';

export const REPLICATION_TARGET = 'replication';

const Cube = defineEntity(
  'cube',
  t.object({ position: t.vector3(t.float(-64, 64, 1 / 512)), rest: t.bool(), hp: t.int(0, 1000) }),
);
// A private part (owner only): its companion ghosts, grants and withdraws are fuzzed too.
const Tag = defineEntity('tag', t.object({ name: t.string(12), team: t.int(0, 3), secret: t.uint16() }), {
  visibility: { secret: owner() },
});
const types = [Cube, Tag];
const Hit = defineEvent('hit', t.object({ damage: t.int(0, 100) }));
const Say = defineEvent('say', t.object({ n: t.uint32(), text: t.string(10) }));
const events = [Hit, Say];
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const CAPACITY = 64;
const HISTORY = 8;
/** The twin's last sections, mutated: recent ones, so most are not stale. */
const CORPUS = 8;
/** Hostile inputs to the victim per real packet. */
const INJECTED_PER_PACKET = 8;
/** Ticks between fresh victims (an accepted far-future tick makes a victim refuse everything). */
const VICTIM_LIFE = 2048;

export interface ReplicationFuzzOptions {
  readonly seed: number;
  /** Packets the victim reads (real and hostile). */
  readonly inputs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly gc?: () => void;
}

/** A cheap fingerprint of everything a mirror holds (FNV-1a over ids, generations, ticks, lanes). */
export function mirrorFingerprint(mirror: ClientMirror): number {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h = Math.imul(h ^ (x >>> 0), 0x01000193);
  };
  mix(mirror.newestTick);
  mix(mirror.size);
  for (const ghost of mirror.ghosts()) {
    mix(ghost.id);
    mix(ghost.generation);
    mix(mirror.typeOf[ghost.id]);
    mix(ghost.tick);
    const latest = mirror.history(ghost.id)?.latest;
    if (latest === null || latest === undefined) continue;
    for (let i = 0; i < latest.lanes.length; i++) mix(latest.lanes[i]);
    for (const blob of latest.blobs) for (let i = 0; i < blob.length; i++) mix(blob[i]);
  }
  return h >>> 0;
}

/** Null when every ghost's value quantizes back to its newest lanes, else what is wrong. */
function inconsistency(mirror: ClientMirror, scratch: LaneState[]): string | null {
  let count = 0;
  for (const ghost of mirror.ghosts()) {
    count++;
    const typeIndex = mirror.typeOf[ghost.id];
    const latest = mirror.history(ghost.id)?.latest ?? null;
    if (typeIndex < 0 || mirror.types[typeIndex] !== ghost.type || latest === null)
      return `ghost ${ghost.id}: type or history missing`;
    const state = scratch[typeIndex];
    try {
      ghost.type.layout.quantize(ghost.value, state);
    } catch (error) {
      return `ghost ${ghost.id}: its value does not quantize (${error instanceof Error ? error.message : error})`;
    }
    if (!sameState(state, latest)) return `ghost ${ghost.id}: its value is not its newest lanes`;
  }
  if (count !== mirror.size || count > mirror.capacity)
    return `${count} ghosts, size ${mirror.size}, capacity ${mirror.capacity}`;
  return null;
}

const randomCube = (next: () => number) => ({
  position: [next() * 120 - 60, next() * 120 - 60, next() * 10] as [number, number, number],
  rest: next() < 0.5,
  hp: randomInt(next, 1001),
});
const randomTag = (next: () => number) => ({
  name: 'tag'.repeat(randomInt(next, 5)),
  team: randomInt(next, 4),
  secret: randomInt(next, 0x10000),
});

export function runReplicationFuzz(options: ReplicationFuzzOptions): TargetReport {
  const { seed, inputs } = options;
  if (!(Number.isSafeInteger(inputs) && inputs >= 1))
    throw new RangeError('inputs must be a positive integer');
  const next = prng(seed);
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength: HISTORY });
  const replication = new ReplicationServer({ world, maxClients: 2, events });
  const mirrorOptions = { types, capacity: CAPACITY, historyLength: HISTORY, events };
  /** Reliable global events the real mirror got (their serials), and the victim's dispatch problems. */
  const said: number[] = [];
  let victimEvents = 0;
  let victimEventProblem = '';
  const real = new ClientMirror({
    ...mirrorOptions,
    onEvent: (e: ReceivedEvent) => {
      if (e.is(Say) && e.reliable) said.push(e.value.n);
    },
  });
  const victim = new ClientMirror({
    ...mirrorOptions,
    onEvent: (e: ReceivedEvent) => {
      victimEvents++;
      if (e.ghost !== null && victim.ghost(e.ghost.id) !== e.ghost)
        victimEventProblem = `event ${e.name} without its ghost`;
    },
  });
  const connect = (mirror: ClientMirror, clientIndex: number) => ({
    server: new MessageConnection({ factory, channels: [replication.channel], clientIndex }),
    client: new MessageConnection({ factory, channels: [mirror.channel], clientIndex }),
  });
  const realLink = connect(real, 0);
  let twin = connect(victim, 1);
  const mismatched = new ClientMirror({ ...mirrorOptions, capacity: CAPACITY + 1 });
  const mismatchedLink = connect(mismatched, 1);
  const report = newTargetReport({
    target: REPLICATION_TARGET,
    description: 'hostile ghost sections into a ClientMirror beside a real server-to-mirror stream',
    seed,
    readers: ['victim mirror', 'real mirror', 'mismatched mirror'],
    corpusSize: CORPUS,
    gc: options.gc,
  });
  const [victimStats, realStats, mismatchedStats] = report.readers;
  const meter = runMeter(report, inputs, options);
  const fail = (check: string, detail: string, input: Uint8Array) =>
    recordFailure(report, check, detail, report.iterations, input);
  const scratch = world.types.map((type) => type.layout.createState());
  const corpus: Uint8Array[] = [];
  const maker = new InputMaker(4096);
  const entities: Entity<unknown>[] = [];
  const inFlight: PacketRecord[] = [];
  let serial = 0;
  const reliableSays: number[] = [];
  let now = 0;
  let tick = 0;

  const stepWorld = () => {
    const roll = next();
    if (world.size < CAPACITY - 8 && (roll < 0.3 || entities.length < 8)) {
      const entity = next() < 0.7 ? world.create(Cube, randomCube(next)) : world.create(Tag, randomTag(next));
      entities.push(entity as Entity<unknown>);
    } else if (roll < 0.4 && entities.length > 0) {
      const k = randomInt(next, entities.length);
      world.destroy(entities[k]);
      entities[k] = entities[entities.length - 1];
      entities.pop();
    }
    if (next() < 0.2 && entities.length > 0) {
      // A grant or withdraw of a tag's secret: owned by the real client (0), the victim (1), or nobody.
      const e = entities[randomInt(next, entities.length)];
      if (e.type === Tag) world.setOwner(e, next() < 0.4 ? null : randomInt(next, 2));
    }
    const sets = randomInt(next, 6);
    for (let i = 0; i < sets && entities.length > 0; i++) {
      const e = entities[randomInt(next, entities.length)];
      if (e.type === Cube) world.set(e as Entity<ReturnType<typeof randomCube>>, randomCube(next));
      else world.set(e as Entity<ReturnType<typeof randomTag>>, randomTag(next));
    }
    for (let i = randomInt(next, 3); i > 0; i--) {
      const reliable = next() < 0.5;
      if (next() < 0.5 && entities.length > 0)
        replication.emit(
          Hit,
          { damage: randomInt(next, 101) },
          { entity: entities[randomInt(next, entities.length)], reliable },
        );
      else {
        if (reliable) reliableSays.push(serial);
        replication.emit(Say, { n: serial++, text: 'x'.repeat(randomInt(next, 11)) }, { reliable });
      }
    }
    world.tick();
  };

  const sendReal = (lossy: boolean) => {
    const { data, record } = realLink.server.writePacket(now);
    const packet = Uint8Array.from(data);
    if (lossy && next() < 0.1) return;
    if (realLink.client.readPacket(packet, 0, packet.length)) {
      realStats.accepted++;
      if (!lossy || next() >= 0.05) inFlight.push(record);
    } else {
      realStats.rejected++;
      fail('real packet accepted', realLink.client.lastRejection ?? 'no reason', packet);
    }
    while (inFlight.length > (lossy ? 3 : 0)) realLink.server.acked(inFlight.shift()!);
  };

  /** Feeds the victim one input; true when it accepted it. */
  const feedVictim = (input: Uint8Array, origin: 'real' | 'random' | 'mutated'): boolean => {
    const before = mirrorFingerprint(victim);
    const eventsBefore = victimEvents;
    victimEventProblem = '';
    const where = {
      target: REPLICATION_TARGET,
      reader: 'victim mirror',
      seed,
      mutated: origin === 'mutated',
    };
    const ok = guardedRead(report, where, input, () => twin.client.readPacket(input, 0, input.length));
    if (ok === null) return false;
    report.iterations++;
    report.semanticChecks++;
    if (ok) {
      victimStats.accepted++;
      if (origin === 'mutated') victimStats.acceptedMutated++;
      else if (origin === 'random') victimStats.acceptedRandom++;
      const wrong = inconsistency(victim, scratch);
      if (wrong !== null) fail('an accepted section leaves the mirror consistent', wrong, input);
      if (victimEventProblem !== '')
        fail('an entity event is dispatched with its ghost', victimEventProblem, input);
    } else {
      victimStats.rejected++;
      const reason = twin.client.lastRejection;
      if (reason === null) fail('refusal names a reason', 'lastRejection is null', input);
      else {
        const key = normalizeReason(reason).replace(/\d+/g, 'N');
        victimStats.reasons.set(key, (victimStats.reasons.get(key) ?? 0) + 1);
      }
      report.semanticChecks++;
      if (mirrorFingerprint(victim) !== before || victimEvents !== eventsBefore)
        fail('a refused section changes nothing', reason ?? 'no reason', input);
    }
    return ok;
  };

  /** The twin's real sections must all be refused by a mirror configured otherwise. */
  const feedMismatched = (input: Uint8Array) => {
    const ok = mismatchedLink.client.readPacket(input, 0, input.length);
    const reason = mismatchedLink.client.lastRejection ?? 'no reason';
    report.semanticChecks++;
    if (ok || mismatched.size !== 0 || !/configuration/.test(reason))
      fail('a mirror configured otherwise refuses, saying why', ok ? 'accepted' : reason, input);
    if (ok) mismatchedStats.accepted++;
    else {
      mismatchedStats.rejected++;
      const key = normalizeReason(reason);
      mismatchedStats.reasons.set(key, (mismatchedStats.reasons.get(key) ?? 0) + 1);
    }
  };

  while (report.iterations < inputs && report.crash === null) {
    now += 1 / 30;
    tick++;
    stepWorld();
    sendReal(true);
    const written = twin.server.writePacket(now);
    const copy = Uint8Array.from(written.data);
    if (copy.length > 1) {
      if (corpus.length < CORPUS) corpus.push(copy);
      else corpus[tick % CORPUS] = copy;
    }
    if (feedVictim(copy, 'real')) twin.server.acked(written.record);
    if (copy.length > 1) feedMismatched(copy);
    for (let k = 0; k < INJECTED_PER_PACKET && report.iterations < inputs && report.crash === null; k++) {
      if (corpus.length === 0 || next() < 0.25) {
        report.randomInputs++;
        feedVictim(maker.random(next, randomInt(next, 600)), 'random');
      } else {
        report.mutatedInputs++;
        // Mostly the newest section (of the victim's newest tick, so not stale), else a recent one.
        const base = next() < 0.7 ? copy : corpus[randomInt(next, corpus.length)];
        const other = corpus[randomInt(next, corpus.length)];
        feedVictim(maker.mutate(next, base, other), 'mutated');
      }
    }
    // A forged tick ahead of the world's makes every real section stale: start the victim afresh.
    if (tick % VICTIM_LIFE === 0 || victim.newestTick > world.serverTick) twin = connect(victim, 1);
    if ((tick & 15) === 0) meter.update(report.iterations);
  }
  // Converge: a clean link until the real mirror matches the world.
  let converged = '';
  for (let i = 0; i < 200; i++) {
    now += 1 / 30;
    sendReal(false);
    converged = difference(world, entities, real, 0);
    if (converged === '' && said.length >= reliableSays.length) break; // resends may trail the state
  }
  report.semanticChecks++;
  if (converged !== '') fail('the real mirror converges to the world', converged, new Uint8Array(0));
  report.semanticChecks++;
  if (said.join() !== reliableSays.join())
    fail(
      'the real mirror gets every reliable global event once, in order',
      `${said.length} of ${reliableSays.length}`,
      new Uint8Array(0),
    );
  meter.finish();
  return report;
}

/** '' when the mirror holds exactly the world's entities at their quantized values. */
function difference(
  world: ServerWorld,
  entities: readonly Entity<unknown>[],
  mirror: ClientMirror,
  clientIndex: number,
): string {
  if (mirror.size !== entities.length) return `${mirror.size} ghosts for ${entities.length} entities`;
  for (const entity of entities) {
    const ghost = mirror.ghost(entity.id);
    if (ghost === null || ghost.generation !== entity.generation || ghost.type !== entity.type)
      return `entity ${entity.id} missing or of another generation`;
    // A private part reads undefined (no key in JSON) where the client is not its audience.
    const expected = world.get(entity) as Record<string, unknown>;
    if (entity.type === Tag && world.ownerOf(entity) !== clientIndex) expected.secret = undefined;
    if (JSON.stringify(ghost.value) !== JSON.stringify(expected))
      return `entity ${entity.id}: ${JSON.stringify(ghost.value)} != ${JSON.stringify(expected)}`;
  }
  return '';
}

export function formatReplicationDetails(report: TargetReport): string[] {
  const real = report.readers[1];
  return [
    `  real packets accepted by the real mirror ${real.accepted.toLocaleString('en-US')}, refused ${real.rejected}; converged at the end: ${report.failures.has('the real mirror converges to the world') ? 'NO' : 'yes'}`,
  ];
}
