/**
 * Server memory per connected idle player of a GameServer at its defaults (16 players, the demo
 * arena's rules: 60 wandering orbs and an avatar per player, 30 Hz), what a game built on the
 * game API pays per player. The server runs in a child process (memory-game-child.ts) and the
 * players here, over UDP on loopback, standing still (an empty input every tick).
 *
 * Two figures: the marginal cost, (heap with 16 players − heap with 4) / 12, which leaves out
 * what the first players make once (compiled code, shared scratch, the orbs' ghosts' shared
 * encodings); and everything the players brought, (heap with 16 − heap with none) / 16. Both less
 * the code V8 compiled meanwhile.
 */
import { fileURLToPath } from 'node:url';
import '../../src/node.js';
import { arena } from '../../demo/game.js';
import { GameClient } from '../../src/game/game-client.js';
import { check } from '../harness.js';
import { JsonLineChild, sleep } from '../support/child-process.js';

const CHILD = fileURLToPath(new URL('./memory-game-child.js', import.meta.url));
/** GameServer's default maxPlayers. */
export const GAME_PLAYERS = 16;
const FIRST = 4;
const IDLE_MS = 3000;
/** How long the first players play before their figure is taken (the process warms up meanwhile). */
const WARM_MS = 10_000;
const STILL = { dx: 0, dy: 0, zap: false, aimX: 0, aimY: 0 };

export interface GameServerMemory {
  /** (heap with 16 − heap with 4) / 12, bytes. */
  marginal: number;
  /** (heap with 16 − heap with none) / 16, bytes. */
  allIn: number;
  /** The server with nobody connected, bytes (heap + buffers of the whole process). */
  empty: number;
  /** What the warmed process with the first players still grew over one idle period, bytes (the figure's noise floor). */
  drift: number;
}

export async function gameServerBytesPerPlayer(): Promise<GameServerMemory> {
  const child = new JsonLineChild({
    script: CHILD,
    args: [],
    nodeArgs: ['--expose-gc'],
    suite: 'memory',
    name: 'memory-game-child',
  });
  const clients: GameClient<typeof arena>[] = [];
  const timer = setInterval(() => {
    for (const client of clients) if (client.status === 'connected') client.update(STILL);
  }, 1000 / 30);
  try {
    const ready = await child.next('ready', 20_000, 'starting the GameServer');
    check(ready.gc === true, 'memory: the GameServer child has no gc');
    const url = String(ready.url);
    const measured = async (players: number, idleMs = IDLE_MS) => {
      while (clients.length < players) clients.push(await GameClient.connect(arena, url));
      await sleep(idleMs);
      child.send({ type: 'measure' });
      const m = await child.next('measured', 20_000, 'measuring the GameServer');
      check(m.players === players, `memory: ${m.players} players on the GameServer, not ${players}`);
      return { bytes: Number(m.bytes), code: Number(m.codeBytes) };
    };
    const none = await measured(0);
    // A young process still grows with nobody joining (V8's feedback and dependent code, which the
    // code statistics leave out; the orbs' rewind rings filling): the first players' figure is
    // taken once that has settled, and the growth over one more idle period with them is printed
    // as the figure's drift.
    const warm = await measured(FIRST, WARM_MS);
    const first = await measured(FIRST);
    const all = await measured(GAME_PLAYERS);
    check(
      clients.every((c) => c.status === 'connected'),
      'memory: a GameClient dropped',
    );
    return {
      marginal: (all.bytes - all.code - (first.bytes - first.code)) / (GAME_PLAYERS - FIRST),
      allIn: (all.bytes - all.code - (none.bytes - none.code)) / GAME_PLAYERS,
      empty: none.bytes,
      drift: first.bytes - first.code - (warm.bytes - warm.code),
    };
  } finally {
    clearInterval(timer);
    for (const client of clients) client.close();
    await child.stop(5000);
  }
}
