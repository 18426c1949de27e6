/**
 * The replication commands fuzz (client → server), shared by `npm run fuzz` (target `commands` in
 * scripts/fuzz.ts) and the short seeded run in `npm test` (test/replication/replication-commands-fuzz.test.ts).
 *
 * A ServerWorld with a ReplicationServer and its CommandRouter serves one connection on the
 * replication channel, a reliable-ordered and an unreliable-sequenced command channel. A twin
 * client sends real commands (a targeted move of its own player, a global shout, on both
 * channels); between its packets the server reads hostile ones: random bytes, mutations of the
 * twin's recent packets, and those packets with an edge number (around 0, 2^16, 2^31, 2^32 − 1)
 * written over a field (message sequences, ids, generations). After each packet the server steps
 * as a game does: the world ticks, every received message is dispatched, the next packet is
 * written. Checks:
 *
 * - no read throws, and no server step after it throws (the world's tick, `receive`, `dispatch`,
 *   writing the next packet);
 * - a refused packet names a reason and changes nothing (the router's counters, the world);
 * - the entity the client does not own is never changed by its commands.
 *
 * Everything is a function of the seed.
 */
import { MessageConnection, MessageFactory, type PacketRecord } from '../src/channels/index.js';
import { prng, randomInt } from '../src/random/prng.js';
import {
  ClientMirror,
  defineCommand,
  defineEntity,
  type Ghost,
  ReplicationServer,
  ServerWorld,
  sendCommand,
} from '../src/replication/index.js';
import { t } from '../src/schema/schema.js';
import {
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

export const COMMANDS_TARGET = 'commands';

const Player = defineEntity('player', t.object({ x: t.int(-100_000, 100_000), hp: t.int(0, 100) }));
const types = [Player];
const Move = defineCommand('move', t.object({ dx: t.int(-4, 4) }), { target: Player });
const Shout = defineCommand('shout', t.object({ n: t.uint32(), text: t.string(8) }));
const factory = new MessageFactory([Move, Shout]);
const ACTIONS = 1;
const INPUTS = 2;
const CLIENT = 1;
const CORPUS = 8;
const INJECTED_PER_PACKET = 8;

export interface CommandsFuzzOptions {
  readonly seed: number;
  /** Packets the server reads (real and hostile). */
  readonly inputs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly gc?: () => void;
}

export function runCommandsFuzz(options: CommandsFuzzOptions): TargetReport {
  const { seed, inputs } = options;
  if (!(Number.isSafeInteger(inputs) && inputs >= 1))
    throw new RangeError('inputs must be a positive integer');
  const next = prng(seed);
  const world = new ServerWorld({ types, capacity: 8 });
  const replication = new ReplicationServer({
    world,
    maxClients: 2,
    commands: { ratePerSecond: 120, burst: 20 },
  });
  const router = replication.commands;
  router.on(Move, {
    validate: (_client, command) => command.dx !== 0 || 'a move of 0 does nothing',
    run: (_client, command, entity) => {
      const value = world.get(entity);
      world.set(entity, { ...value, x: value.x + command.dx });
    },
  });
  let shouts = 0;
  router.on(Shout, { run: () => shouts++ });
  const mine = world.create(Player, { x: 0, hp: 100 });
  world.setOwner(mine, CLIENT);
  const theirs = world.create(Player, { x: 500, hp: 100 });
  world.setOwner(theirs, 0);
  const channels = [{ kind: 'reliable-ordered' as const }, { kind: 'unreliable-sequenced' as const }];
  const server = new MessageConnection({
    factory,
    channels: [replication.channel, ...channels],
    clientIndex: CLIENT,
  });
  const mirror = new ClientMirror({ types, capacity: 8 });
  const client = new MessageConnection({
    factory,
    channels: [mirror.channel, ...channels],
    clientIndex: CLIENT,
  });
  const report = newTargetReport({
    target: COMMANDS_TARGET,
    description: 'hostile command packets into a MessageConnection and CommandRouter beside a real client',
    seed,
    readers: ['server'],
    corpusSize: CORPUS,
    gc: options.gc,
  });
  const [serverStats] = report.readers;
  const meter = runMeter(report, inputs, options);
  const fail = (check: string, detail: string, input: Uint8Array) =>
    recordFailure(report, check, detail, report.iterations, input);
  const maker = new InputMaker(2048);
  const corpus: Uint8Array[] = [];
  const theirValue = JSON.stringify(world.get(theirs));
  let now = 0;
  let lastHostile: Uint8Array = new Uint8Array(0);
  const print = () => `${JSON.stringify(router.stats)} ${JSON.stringify(world.get(mine))} ${shouts}`;
  const step = <R>(reader: string, run: () => R): { value: R } | null =>
    guardedUpdate(report, { target: COMMANDS_TARGET, reader, seed, mutated: true }, lastHostile, run);

  const feed = (input: Uint8Array, origin: 'real' | 'random' | 'mutated'): boolean => {
    if (origin !== 'real') lastHostile = input;
    const before = print();
    const where = { target: COMMANDS_TARGET, reader: serverStats.name, seed, mutated: origin === 'mutated' };
    const ok = guardedRead(report, where, input, () => server.readPacket(input, 0, input.length));
    if (ok === null) return false;
    report.iterations++;
    report.semanticChecks++;
    if (ok) {
      serverStats.accepted++;
      if (origin === 'mutated') serverStats.acceptedMutated++;
      else if (origin === 'random') serverStats.acceptedRandom++;
    } else {
      serverStats.rejected++;
      const reason = server.lastRejection;
      if (reason === null) fail('refusal names a reason', 'lastRejection is null', input);
      else {
        const key = normalizeReason(reason).replace(/\d+/g, 'N');
        serverStats.reasons.set(key, (serverStats.reasons.get(key) ?? 0) + 1);
      }
      if (print() !== before) fail('a refused packet changes nothing', reason ?? 'no reason', input);
    }
    // The game's step: dispatch what arrived (a step that throws is the run's crash).
    return (
      step('server dispatch', () => {
        for (const channel of [ACTIONS, INPUTS])
          for (let m = server.receive(channel); m !== null; m = server.receive(channel))
            router.dispatch(CLIENT, m, now);
      }) !== null && ok
    );
  };

  const hostile = () => {
    const roll = next();
    if (corpus.length === 0 || roll < 0.2) {
      report.randomInputs++;
      feed(maker.random(next, randomInt(next, 120)), 'random');
      return;
    }
    report.mutatedInputs++;
    const base = corpus[corpus.length - 1 - randomInt(next, Math.min(3, corpus.length))];
    if (roll < 0.5) feed(maker.edgeNumbers(next, base), 'mutated');
    else feed(maker.mutate(next, base, corpus[randomInt(next, corpus.length)]), 'mutated');
  };

  const inFlight: PacketRecord[] = [];
  let n = 0;
  let ticks = 0;
  while (report.iterations < inputs && report.crash === null) {
    now += 1 / 60;
    if (step('world tick', () => world.tick()) === null) break;
    const ghost = mirror.ghost(mine.id) as Ghost<{ x: number; hp: number }> | null;
    if (ghost !== null && next() < 0.7)
      sendCommand(client, next() < 0.5 ? ACTIONS : INPUTS, Move, { dx: randomInt(next, 9) - 4 }, ghost);
    if (next() < 0.3) sendCommand(client, ACTIONS, Shout, { n: (n++ * 2654435761) >>> 0, text: 'hi' });
    const up = client.writePacket(now);
    const bytes = up.data.slice();
    if (bytes.length > 1) {
      corpus.push(bytes);
      if (corpus.length > CORPUS) corpus.shift();
    }
    if (feed(bytes, 'real')) inFlight.push(up.record);
    while (inFlight.length > 2) client.acked(inFlight.shift()!);
    for (let k = 0; k < INJECTED_PER_PACKET && report.iterations < inputs && report.crash === null; k++)
      hostile();
    if (report.crash !== null) break;
    const down = step('server update', () => {
      const { data, record } = server.writePacket(now);
      return { bytes: data.slice(), record };
    });
    if (down === null) break;
    if (client.readPacket(down.value.bytes, 0, down.value.bytes.length)) server.acked(down.value.record);
    report.semanticChecks++;
    if (JSON.stringify(world.get(theirs)) !== theirValue)
      fail('an entity the client does not own never changes', JSON.stringify(world.get(theirs)), lastHostile);
    if ((++ticks & 15) === 0) meter.update(report.iterations);
  }
  report.semanticChecks++;
  if (report.crash === null && router.stats.delivered === 0)
    fail('the real commands are delivered', JSON.stringify(router.stats), new Uint8Array(0));
  meter.finish();
  return report;
}
