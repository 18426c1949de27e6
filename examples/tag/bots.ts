// Three bots play tag against a server (`node bots.js http://127.0.0.1:8080`) or, with ROOM=tag,
// against a fleet's rooms (POOL=tag: matchmaking). They play TAG_SECONDS seconds (default 20), then print the scores.
import { GameClient } from 'ghostwire/node';
import { tag } from './game.js';

const url = process.argv[2] ?? 'http://127.0.0.1:8080';
const seconds = Number(process.env.TAG_SECONDS ?? 20);
const room = process.env.ROOM;
const pool = process.env.POOL;

// #region rules
type Place = { x: number; y: number };
/** The input that steers `me` toward `target` (or away from it). */
function steer(me: Place, target: Place, away: boolean): { dx: number; dy: number } {
  const sign = away ? -1 : 1;
  const axis = (d: number) => (Math.abs(d) < 0.2 ? 0 : Math.sign(d) * sign);
  return { dx: axis(target.x - me.x), dy: axis(target.y - me.y) };
}
const nearest = (me: Place, others: Place[]) =>
  others.reduce((a, b) => (Math.hypot(a.x - me.x, a.y - me.y) < Math.hypot(b.x - me.x, b.y - me.y) ? a : b));
// #endregion

async function play(n: number): Promise<number> {
  const client = await GameClient.connect(tag, url, { room, pool, name: `bot${n}` });
  let tags = 0;
  client.on('tagged', () => tags++);
  const timer = setInterval(() => {
    const me = client.me?.state;
    const others = client.entities.map((e) => e.state);
    const it = others.find((o) => o.it);
    // "It" chases the nearest; the others run from "it" (and wander while nobody is it).
    const input = !me || others.length === 0 ? { dx: 0, dy: 0 }
      : me.it ? steer(me, nearest(me, others), false)
      : steer(me, it ?? { x: Math.sin(n + Date.now() / 900) * 9, y: Math.cos(n + Date.now() / 700) * 9 }, it !== undefined);
    client.update(input);
  }, 1000 / 60);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  clearInterval(timer);
  console.log(`bot${n}: score ${client.me?.state.score ?? 0}, saw ${tags} tags, rtt ${(client.rtt * 1000).toFixed(1)} ms`);
  client.close();
  return tags;
}

const tags = await Promise.all([1, 2, 3].map(play));
console.log(`tags seen: ${tags.join(' ')}`);
