/**
 * What a spectator costs a room server beside a player: the `spectators` suite's scene (300
 * entities that all move every tick, 30 Hz, GameClients in this process) as a game room of a
 * local fleet on loopback UDP, joined through the backend (players by join-or-create, spectators
 * by the room's id). The room server's frame (messages, the room's tick, a packet to every
 * client; one tick per frame at the room's rate) is timed around RoomServer.update, in three
 * phases of the same room: P players; P players + S spectators; P + S players. Per spectator =
 * (phase 2 − phase 1) / S; per player = (phase 3 − phase 1) / S. Spectators per core = half a
 * tick's budget (50%) over the per-spectator cost. Rough figures (the clients share the machine);
 * the ratio is what to read.
 */
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { spectatorStats } from '../../src/services/game-room.js';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { field, MARKERS, rules, TICK_RATE } from '../support/marker-field.js';

export async function runRoomSpectators(ctx: SuiteContext): Promise<void> {
  const players = ctx.options.quick ? 4 : 8;
  const spectators = ctx.options.quick ? 16 : 32;
  const windowFrames = ctx.options.quick ? 60 : 150;
  const fleet = await startLocalFleet({
    games: {
      field: {
        rules,
        defaults: { maxClients: players + spectators },
        spectators: { max: spectators, maxPerAddress: spectators },
      },
    },
    port: 0,
    transports: ['udp'],
    backend: { rateLimit: false },
  });
  // The room server's frame, timed: everything the process does for a tick (not the clients' work).
  const server = fleet.servers[0];
  const inner = server.update.bind(server);
  let spent = 0;
  let frames = 0;
  server.update = (now?: number) => {
    const t0 = performance.now();
    inner(now);
    spent += performance.now() - t0;
    frames++;
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
    frames = 0;
    while (frames < windowFrames) await settle(50);
    return spent / frames;
  };
  try {
    for (let i = 0; i < players; i++)
      clients.push(await GameClient.connect(field, fleet.url, { room: 'field' }));
    const [room] = server.rooms;
    check(server.rooms.length === 1 && room.seats.size === players, `${server.rooms.length} rooms`);
    const base = await window();
    const watchers: GameClient<typeof field>[] = [];
    for (let i = 0; i < spectators; i++) {
      const tv = await GameClient.connect(field, fleet.url, { room: room.roomId, spectate: true });
      tv.follow(0);
      watchers.push(tv);
      clients.push(tv);
    }
    check(spectatorStats(room)?.spectators === spectators, `${spectatorStats(room)?.spectators} spectators`);
    const withSpectators = await window();
    for (const tv of watchers) {
      tv.close();
      clients.splice(clients.indexOf(tv), 1);
    }
    await settle(500);
    // As many more players as there were spectators: the same number of connections and clients.
    for (let i = 0; i < spectators; i++)
      clients.push(await GameClient.connect(field, fleet.url, { room: 'field' }));
    check(room.seats.size === players + spectators, `${room.seats.size} players seated`);
    const morePlayers = await window();
    const perSpectator = Math.max(1e-6, (withSpectators - base) / spectators);
    const perPlayer = Math.max(1e-6, (morePlayers - base) / spectators);
    const budget = (0.5 * 1000) / TICK_RATE;
    ctx.note(
      `room spectators: one game room, ${MARKERS} moving entities at ${TICK_RATE} Hz, room server ms per frame (mean over ${windowFrames} frames):`,
    );
    ctx.note(`  ${players} players                      ${fmt(base)} ms`);
    ctx.note(`  ${players} players + ${spectators} spectators    ${fmt(withSpectators)} ms`);
    ctx.note(`  ${players + spectators} players                     ${fmt(morePlayers)} ms`);
    ctx.note(
      `  per spectator ${fmt(perSpectator * 1000)} µs, per player ${fmt(perPlayer * 1000)} µs (${fmt(perPlayer / perSpectator)}x); spectators per core at a 50% tick budget: ${Math.floor(budget / perSpectator)}`,
    );
    ctx.record('ms per frame', { base, withSpectators, morePlayers });
    ctx.record('ms per frame per spectator', perSpectator);
    ctx.record('ms per frame per player', perPlayer);
    ctx.record('spectators per core (50% budget)', Math.floor(budget / perSpectator));
  } finally {
    clearInterval(timer);
    for (const client of clients) client.close();
    await fleet.close();
  }
}
