/**
 * The zones bench's players, in a process of their own so the server's CPU is measured alone:
 * `node dist/bench/zones/zone-bots.js --url http://127.0.0.1:PORT --players N [--seed S]
 * [--max-seconds 300]`. Each bot is a full GameClient (UDP, predicting its own walker) that walks
 * to a random point of the map, then to another: its paths cross zone borders. Every bot is
 * updated at the game's tick rate from one timer.
 *
 * Writes JSON lines: `ready` {connected, failed} once every bot tried to join; a `mark` reply
 * {connected, mispredictions, cpuUser, cpuSystem} to each `{"type":"mark","id":n}`; exits on
 * `{"type":"quit"}`, when stdin closes, or after --max-seconds.
 */
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { prng } from '../../src/random/prng.js';
import { argumentReader, emit, exitAfter, readCommands } from '../support/child-main.js';
import { cpuSample } from '../support/process-stats.js';
import { SIDE, WALKER_STEP, zoneBenchGame } from './zone-bench-game.js';

const argument = argumentReader('zone-bots');
const url = argument('url');
const players = Number(argument('players'));
const seed = Number(argument('seed', '26')) >>> 0;
const maxSeconds = Number(argument('max-seconds', '300'));

type Bot = { client: GameClient<typeof zoneBenchGame>; target: { x: number; y: number } };
const bots: Bot[] = [];
const random = prng(seed);
const somewhere = () => ({ x: random() * SIDE, y: random() * SIDE });

function exit(code: number): never {
  for (const bot of bots) bot.client.close();
  process.exit(code);
}
exitAfter('zone-bots', maxSeconds, exit);

function drive(): void {
  for (const bot of bots) {
    const me = bot.client.me?.state;
    let dx = 0;
    let dy = 0;
    if (me !== undefined) {
      const ex = bot.target.x - me.x;
      const ey = bot.target.y - me.y;
      if (Math.abs(ex) <= WALKER_STEP && Math.abs(ey) <= WALKER_STEP) bot.target = somewhere();
      dx = Math.abs(ex) > WALKER_STEP ? Math.sign(ex) : 0;
      dy = Math.abs(ey) > WALKER_STEP ? Math.sign(ey) : 0;
    }
    bot.client.update({ dx, dy });
  }
}

async function join(): Promise<void> {
  let failed = 0;
  let firstError = '';
  // A few at a time: the gateway's join path is not what this bench measures.
  for (let at = 0; at < players; at += 4) {
    const batch = Array.from({ length: Math.min(4, players - at) }, () =>
      GameClient.connect(zoneBenchGame, url, { timeout: 20 }),
    );
    for (const result of await Promise.allSettled(batch)) {
      if (result.status === 'fulfilled') bots.push({ client: result.value, target: somewhere() });
      else {
        failed++;
        firstError ||= String(result.reason?.message ?? result.reason);
      }
    }
  }
  emit({ type: 'ready', connected: bots.length, failed, firstError });
}

setInterval(drive, 1000 / zoneBenchGame.tickRate);
readCommands<{ type?: string; id?: number }>('zone-bots', exit, (message) => {
  if (message.type === 'mark') {
    let mispredictions = 0;
    let connected = 0;
    for (const bot of bots) {
      if (bot.client.status === 'connected') connected++;
      mispredictions += bot.client.stats().mispredictions;
    }
    emit({ type: 'mark', id: message.id, connected, mispredictions, ...cpuSample() });
  } else if (message.type === 'quit') exit(0);
});
void join();
