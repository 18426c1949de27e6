// The server: owns the world, takes the players' inputs, and serves UDP, WebSocket and WebRTC on
// one port (PORT, default 8080; 0: any free one), minting each player's connect token itself.
import { GameServer } from 'ghostwire/node';
import { walkers } from './game.js';

const rules = walkers.rules({
  onJoin(game, player) {
    const walker = player.spawn({ x: 0, y: 0 }); // this player's own entity; its client is told
    console.log(`player ${player.index} joined as walker ${walker.id}`);
    game.emit('joined', { id: walker.id }); // to every player
  },
  onTick(game) {
    if (game.tick % 30 !== 0) return; // once a second: where everyone is
    for (const p of game.players)
      console.log(`player ${p.index} is at ${p.state?.x.toFixed(2)}, ${p.state?.y.toFixed(2)}`);
  },
  onLeave(_game, player) {
    console.log(`player ${player.index} left`);
  },
});

const server = await GameServer.start(rules, { port: Number(process.env.PORT ?? 8080) });
console.log(`walkers at ${server.url}`);
