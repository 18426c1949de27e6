// Several machines: each runs this with the same REDIS_URL, GAME_KEY (32 bytes, hex) and
// SESSION_SECRET; any machine's backend seats a player on any machine's room servers, and a
// machine that dies is dropped from the directory when its records lapse (its rooms reported gone).
import { startLocalFleet } from 'ghostwire/services';
import { Arena, factory, PROTOCOL_ID } from './arena.js';

// #region readme
const fromHex = (hex = '') => Uint8Array.from(Buffer.from(hex, 'hex'));
const fleet = await startLocalFleet({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  privateKey: fromHex(process.env.GAME_KEY), // the same on every machine: tokens are sealed with it
  backend: { sessionSecret: fromHex(process.env.SESSION_SECRET) }, // sessions valid on every backend
  host: process.env.PUBLIC_HOST ?? '127.0.0.1', // the address clients reach this machine at
  servers: 2, // room servers in this process (one per core is typical)
  rooms: { arena: Arena },
  protocolId: PROTOCOL_ID,
  factory,
  matchmaking: { room: 'arena', rules: { minPlayers: 2, maxPlayers: 8, fillWaitMs: 5000, skillWindow: { initial: 100, perSecond: 50, max: 1000 } } },
});
console.log(`backend on ${fleet.url}, room servers ${fleet.servers.map((s) => s.processId).join(', ')}`);
process.on('SIGTERM', () => void fleet.close()); // stops cleanly: clients told, rooms unlisted
// #endregion
