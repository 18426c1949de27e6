// The tag server: UDP, WebSocket and WebRTC on one port set (PORT, default 8080; 0: any free one).
import { GameServer } from 'ghostwire/node';
import { rules } from './rules.js';

const server = await GameServer.start(rules, { port: Number(process.env.PORT ?? 8080), maxPlayers: 4 });
console.log(`tag server at ${server.url}`);
