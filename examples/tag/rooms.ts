// Tag in rooms: the same rules as a room type, with matchmaking into rooms of 3 (services layer).
// Run it, then run bots with ROOM=tag (join-or-create) or POOL=tag (matchmaking) against the URL.
import { startLocalFleet } from 'ghostwire/services';
import { rules } from './rules.js';

const fleet = await startLocalFleet({
  games: { tag: rules },
  port: Number(process.env.PORT ?? 8080),
  // Tickets in any pool are matched three by three into a new private room of type 'tag'.
  matchmaking: {
    room: 'tag',
    rules: { minPlayers: 3, maxPlayers: 3, fillWaitMs: 5000, skillWindow: { initial: 0, perSecond: 0, max: 0 } },
  },
});
console.log(`tag rooms at ${fleet.url}`);
process.once('SIGINT', () => void fleet.close());
process.once('SIGTERM', () => void fleet.close());
