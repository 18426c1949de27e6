/**
 * A game with predicted spawns and a predicted neighbour, served by a GameSimulation and played by
 * GameClients over simulated links (NetworkSimulator on a MemoryNetwork), all on one clock the
 * test advances: the server's ticks, its packets, then each client's update, 60 frames a second.
 */
import { MessageServer } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { defineGame, wiringOf } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import type { GameRules } from '../../src/game/game-rules.js';
import { GameSimulation } from '../../src/game/game-simulation.js';
import { TickClock } from '../../src/latency/index.js';
import { ReplicationServer } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';

const coord = t.float(-64, 64, 1 / 64);
export const COOLDOWN = 8;
const where = (s: { x: number; y: number }) => [s.x, s.y] as const;

export const range = defineGame({
  name: 'spawn-range',
  tickRate: 30,
  maxEntities: 128,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord, cooldown: t.uint8() }), position: where },
    bolt: {
      state: t.object({ x: coord, y: coord, vx: t.int(-32, 32), ttl: t.uint8() }),
      position: where,
      move: (b) => (b.ttl === 0 ? null : { ...b, x: b.x + b.vx / 64, ttl: b.ttl - 1 }),
      predict: 'spawner',
    },
    crate: {
      state: t.object({ x: coord, y: coord, vx: t.int(-8, 8) }),
      position: where,
      // Slides back and forth between -4 and 4 m on its own.
      move: (c) => {
        const vx = (c.x >= 4 && c.vx > 0) || (c.x <= -4 && c.vx < 0) ? -c.vx : c.vx;
        return { ...c, x: c.x + vx / 64, vx };
      },
      predict: { near: 6 },
    },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1), fire: t.bool() }),
  step: (a, i) => ({
    ...a,
    x: Math.max(-60, Math.min(60, a.x + i.dx * 0.25)),
    cooldown: i.fire && a.cooldown === 0 ? COOLDOWN : Math.max(0, a.cooldown - 1),
  }),
  // The step just set the cooldown: that is the tick a bolt leaves.
  spawns: (a, i) =>
    i.fire && a.cooldown === COOLDOWN
      ? [{ type: 'bolt', key: 0, state: { x: a.x, y: a.y, vx: 24, ttl: 45 } }]
      : [],
});

export type RangeInput = { dx: number; fire: boolean };
export const IDLE: RangeInput = { dx: 0, fire: false };

export interface SceneOptions {
  seed: number;
  /** One-way latency, ms (default 75: 150 ms RTT). */
  oneWayMs?: number;
  /** Loss each way, percent (default 0). */
  loss?: number;
  /** Refuse every spawn while true (the rules' allowSpawn). */
  veto?: { on: boolean };
  /** Set `on` to push the crate 1 m along x on the server's next tick (what the client cannot predict). */
  push?: { on: boolean };
  /** Set `on` to move every bolt 0.5 m back along x on the server's next tick. */
  nudgeBolts?: { on: boolean };
  /** The crate's velocity (0: it rests). */
  crateVx?: number;
}

const UNIX_START = 1_700_000_000;

export function spawnScene(options: SceneOptions) {
  const veto = options.veto ?? { on: false };
  const rules: GameRules = range.rules({
    onJoin(game, player) {
      player.spawn({ x: 0, y: player.index * 2, cooldown: 0 });
      if (game.entities.every((e) => e.type !== 'crate'))
        game.spawn('crate', { x: 0, y: 3, vx: options.crateVx ?? 4 });
    },
    allowSpawn: () => !veto.on,
    onTick(game) {
      if (options.nudgeBolts?.on === true) {
        options.nudgeBolts.on = false;
        for (const e of game.entities) if (e.type === 'bolt') e.state = { ...e.state, x: e.state.x - 0.5 };
      }
      if (options.push?.on !== true) return;
      options.push.on = false;
      const crate = game.entities.find((e) => e.type === 'crate');
      if (crate?.type === 'crate') crate.state = { ...crate.state, x: crate.state.x + 1 };
    },
  });
  const maxPlayers = 4;
  const simulation = new GameSimulation(rules, {
    maxPlayers,
    replicate: (o) => new ReplicationServer({ ...o, maxClients: maxPlayers }),
    onError: (error) => {
      throw error;
    },
  });
  const wiring = wiringOf('scene', range);
  const network = new MemoryNetwork();
  const privateKey = new Uint8Array(32).fill(7);
  const serverSocket = network.createTransport('10.0.0.100:1');
  const clock = { now: 0 };
  const server = new MessageServer({
    protocolId: range.protocolId,
    privateKey,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    aead: nobleAead,
    unixTime: () => UNIX_START + Math.floor(clock.now),
    factory: wiring.factory,
    channels: [simulation.replication.channel, simulation.inputs.channel, { kind: 'reliable-ordered' }],
    maxClients: maxPlayers,
    onConnect: (index) => void simulation.join(index),
    onDisconnect: (index) => {
      const player = simulation.playerAt(index);
      if (player !== null) simulation.leave(player);
    },
  });
  const serverClock = new TickClock({ tickRate: range.tickRate, startTick: simulation.world.tick() });
  serverClock.advance(0);
  /** Per server tick, after it is stamped: hooks a test reads the world with. */
  const afterTick: ((tick: number) => void)[] = [];
  const step = (tick: number) => {
    simulation.simulate();
    simulation.world.tick();
    for (const hook of afterTick) hook(tick);
  };
  const clients: { client: GameClient<typeof range>; input: RangeInput }[] = [];
  let next = 2;
  const join = (seed: number) => {
    const address = `10.0.0.${next++}:1`;
    const link = new NetworkSimulator(network.createTransport(address), { seed });
    const conditions = { latencyMs: options.oneWayMs ?? 75, jitterMs: 0, loss: options.loss ?? 0 };
    link.setConditions('outgoing', conditions);
    link.setConditions('incoming', conditions);
    const token = generateConnectToken({
      protocolId: range.protocolId,
      privateKey,
      clientId: BigInt(next),
      serverAddresses: [serverSocket.localAddress],
      now: UNIX_START + Math.floor(clock.now),
      aead: nobleAead,
    });
    // The constructor is private to the API: a test wires the client to its simulated link itself.
    const Client = GameClient as unknown as new (
      game: typeof range,
      opened: unknown,
    ) => GameClient<typeof range>;
    const client = new Client(range, { token, transport: link, kind: 'given', reseat: null });
    (client as unknown as { clock: () => number }).clock = () => clock.now;
    client.expert.messages.connect(token, clock.now);
    const entry = { client, input: IDLE };
    clients.push(entry);
    return entry;
  };
  /** One frame of 1/60 s: the server's due ticks and packets, then every client's update. */
  const frame = () => {
    clock.now += 1 / 60;
    serverClock.advance(clock.now, step);
    server.update(clock.now);
    for (const entry of clients) {
      if (entry.client.expert.messages.connected) entry.client.update(entry.input);
      else entry.client.expert.messages.update(clock.now);
    }
  };
  const run = (seconds: number, each?: () => void) => {
    const end = clock.now + seconds;
    while (clock.now < end) {
      frame();
      each?.();
    }
  };
  return { simulation, clock, join, frame, run, afterTick, veto, clients };
}
