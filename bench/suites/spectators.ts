/**
 * What a spectator costs a GameServer beside a player: one server on real UDP (127.0.0.1), a
 * field of MARKERS entities that all move every tick (so every client is sent changes every
 * tick), and GameClients in this process (pumped at 30 Hz). The server's work per tick (its
 * clock's tick: messages, inputs, simulation, then a packet to every client) is timed around the
 * host's tick call, in three phases of the same server: P players; P players + S spectators;
 * P + S players. Per spectator = (phase 2 − phase 1) / S; per player = (phase 3 − phase 1) / S.
 * Spectators per core = half a tick's budget (50%) over the per-spectator cost. The clients share
 * this process and the machine, so the figures are rough; the ratio is what to read.
 */
import '../../src/node.js';
import { wiringOf } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { SpectatorDelay } from '../../src/game/spectator-delay.js';
import { ServerWorld } from '../../src/replication/server-world.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { field, MARKERS, rules, TICK_RATE } from '../support/marker-field.js';

interface HostInside {
  host: { onTick: (tick: number) => void };
}

export async function runSpectators(ctx: SuiteContext): Promise<void> {
  measureDelay(ctx);
  const players = ctx.options.quick ? 4 : 8;
  const spectators = ctx.options.quick ? 16 : 32;
  const windowTicks = ctx.options.quick ? 60 : 150;
  const server = await GameServer.start(rules, {
    port: 0,
    transports: ['udp'],
    maxPlayers: players + spectators,
    maxPlayersPerAddress: players + spectators,
    joinRate: { perSecond: 1000, burst: 1000 },
    spectators: { max: spectators, maxPerAddress: spectators },
  });
  // The host's tick, timed: everything the server does for a tick (not the clients' work).
  const host = (server as unknown as HostInside).host;
  const inner = host.onTick;
  let spent = 0;
  let ticks = 0;
  host.onTick = (tick) => {
    const t0 = performance.now();
    inner(tick);
    spent += performance.now() - t0;
    ticks++;
  };
  const clients: GameClient<typeof field>[] = [];
  const timer = setInterval(() => {
    for (const client of clients) {
      if (client.status !== 'connected') continue;
      if (client.spectating) client.update();
      else client.update({ dx: 1 });
    }
  }, 1000 / 30);
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const window = async (): Promise<number> => {
    await settle(1000);
    spent = 0;
    ticks = 0;
    while (ticks < windowTicks) await settle(50);
    return spent / ticks;
  };
  try {
    for (let i = 0; i < players; i++) clients.push(await GameClient.connect(field, server.url));
    const base = await window();
    const watchers: GameClient<typeof field>[] = [];
    for (let i = 0; i < spectators; i++) {
      const tv = await GameClient.connect(field, server.url, { spectate: true });
      tv.follow(0);
      watchers.push(tv);
      clients.push(tv);
    }
    check(server.stats().spectators === spectators, `${server.stats().spectators} spectators connected`);
    const withSpectators = await window();
    for (const tv of watchers) {
      tv.close();
      clients.splice(clients.indexOf(tv), 1);
    }
    await settle(500);
    // As many more players as there were spectators: the same number of connections and clients.
    for (let i = 0; i < spectators; i++) clients.push(await GameClient.connect(field, server.url));
    check(server.stats().players === players + spectators, `${server.stats().players} players connected`);
    const morePlayers = await window();
    const perSpectator = Math.max(1e-6, (withSpectators - base) / spectators);
    const perPlayer = Math.max(1e-6, (morePlayers - base) / spectators);
    const budget = (0.5 * 1000) / TICK_RATE;
    ctx.note(
      `spectators: ${MARKERS} moving entities at ${TICK_RATE} Hz, server ms per tick (mean over ${windowTicks} ticks):`,
    );
    ctx.note(`  ${players} players                      ${fmt(base)} ms`);
    ctx.note(`  ${players} players + ${spectators} spectators    ${fmt(withSpectators)} ms`);
    ctx.note(`  ${players + spectators} players                     ${fmt(morePlayers)} ms`);
    ctx.note(
      `  per spectator ${fmt(perSpectator * 1000)} µs, per player ${fmt(perPlayer * 1000)} µs (${fmt(perPlayer / perSpectator)}x); spectators per core at a 50% tick budget: ${Math.floor(budget / perSpectator)}`,
    );
    ctx.record('ms per tick', { base, withSpectators, morePlayers });
    ctx.record('ms per tick per spectator', perSpectator);
    ctx.record('ms per tick per player', perPlayer);
    ctx.record('spectators per core (50% budget)', Math.floor(budget / perSpectator));
  } finally {
    clearInterval(timer);
    for (const client of clients) client.close();
    await server.close();
  }
}

/**
 * The spectator delay's own cost: a world of MARKERS entities all changing every tick (capacity
 * 1024), a 10 s delay at 30 Hz: ms per live tick of SpectatorDelay.tick (hold the tick's changes,
 * apply those of tick − D, stamp) and the bytes held once the ring is full.
 */
export function measureDelay(ctx: SuiteContext): void {
  const wiring = wiringOf('bench', field);
  const live = new ServerWorld({ types: wiring.types, capacity: field.maxEntities });
  const delayTicks = 10 * TICK_RATE;
  const delay = new SpectatorDelay(live, wiring.types, wiring.events, 1, delayTicks, 2 ** 31, undefined, {});
  const marker = field.entityTypes.marker;
  const entities = Array.from({ length: MARKERS }, (_, i) => live.create(marker, { x: i % 200, y: 0 }));
  const ticks = delayTicks + (ctx.options.quick ? 300 : 900);
  let spent = 0;
  for (let tick = 1; tick <= ticks; tick++) {
    for (let i = 0; i < entities.length; i++) live.set(entities[i], { x: i % 200, y: (tick + i) % 200 });
    live.tick();
    const t0 = performance.now();
    delay.tick(tick);
    if (tick > delayTicks) spent += performance.now() - t0;
  }
  const stats = delay.stats();
  check(stats.delayedTick === ticks - delayTicks, `delayed tick ${stats.delayedTick}`);
  const perTick = spent / (ticks - delayTicks);
  ctx.note(
    `spectator delay: ${MARKERS} entities changing every tick, 10 s at ${TICK_RATE} Hz: ${fmt(perTick)} ms per tick (whatever the number of spectators), ${fmt(stats.heldBytes / 1e6)} MB held (${stats.heldTicks} ticks)`,
  );
  ctx.record('delay ms per tick', perTick);
  ctx.record('delay bytes held', stats.heldBytes);
}
