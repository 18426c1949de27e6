// Three bots play tag against a server (`node bots.js http://127.0.0.1:8080`) or a fleet's rooms
// (POOL=tag: matchmaking; ROOM=tag: join-or-create) for TAG_SECONDS (default 20), then print scores.
import { GameClient } from 'ghostwire/node';
import { tag } from './game.js';

// #region rules
type Avatar = { x: number; y: number; it: boolean };
type Shown = { state: Avatar };
const axis = (d: number) => (Math.abs(d) < 0.2 ? 0 : Math.sign(d));
const distance = (a: Avatar, b: Avatar) => Math.hypot(a.x - b.x, a.y - b.y);
/** "It" chases the nearest avatar; the others run from "it" (and wander while nobody is it). */
function choose(mine: Shown | null, shown: readonly Shown[], n: number): { dx: number; dy: number } {
  const me = mine?.state;
  const others = shown.map((o) => o.state);
  if (me === undefined || others.length === 0) return { dx: 0, dy: 0 };
  const it = others.find((o) => o.it);
  const wander = { x: Math.sin(n + Date.now() / 900) * 9, y: Math.cos(n + Date.now() / 700) * 9 };
  const target = me.it
    ? others.reduce((a, b) => (distance(me, a) < distance(me, b) ? a : b))
    : (it ?? wander);
  const sign = me.it || it === undefined ? 1 : -1;
  return { dx: sign * axis(target.x - me.x), dy: sign * axis(target.y - me.y) };
}
// #endregion

const { ROOM: room, POOL: pool, TAG_SECONDS: seconds = '20' } = process.env;

async function play(n: number): Promise<void> {
  const client = await GameClient.connect(tag, process.argv[2] ?? 'http://127.0.0.1:8080', { room, pool });
  let tags = 0;
  client.on('tagged', () => tags++); // every tag in the game, as the server judged it
  const timer = setInterval(() => client.update(choose(client.me, client.entities, n)), 1000 / 60);
  await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
  clearInterval(timer);
  console.log(`bot${n}: score ${client.me?.state.score}, saw ${tags} tags, rtt ${client.rtt.toFixed(3)} s`);
  client.close();
}

await Promise.all([1, 2, 3].map(play));
