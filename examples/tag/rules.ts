// The server side of tag, written once: GameServer runs it (server.ts) and so does a room (rooms.ts).
import { tag } from './game.js';

// #region rules
/** Ticks a new "it" waits before it may tag (no tag-backs): one second. */
const GRACE = 30;
const corner = (n: number) => ({ x: n % 2 ? 8 : -8, y: n & 2 ? 8 : -8 });
// #endregion

export const rules = tag.rules({
  onJoin(game, player) {
    player.spawn({ ...corner(game.players.length), it: !game.players.some((p) => p.state?.it), score: 0 });
  },
  onTick(game) {
    const it = game.players.find((p) => p.state?.it);
    if (!it?.state || game.tick < Number(game.data.since ?? 0) + GRACE) return;
    // What "it" touches as its player saw the others (lag compensation), not where they are now.
    const [hit] = game.hitTest(it);
    if (hit === undefined) return;
    it.state = { ...it.state, it: false, score: it.state.score + 1 };
    hit.state = { ...hit.state, it: true };
    game.data.since = game.tick; // when the new "it" became it
    game.emit('tagged', { tagger: it.entity!.id, target: hit.id });
  },
  onLeave(game, player) {
    const next = game.players.find((p) => p !== player)?.entity;
    if (player.state?.it && next) next.state = { ...next.state, it: true };
  },
});
