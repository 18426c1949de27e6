// Tag in rooms: the same rules as a room type of the services layer, with matchmaking into rooms
// of three. Run it, then bots with POOL=tag (matchmaking) or ROOM=tag (join-or-create).
import { startLocalFleet } from 'ghostwire/services';
import { rules } from './rules.js';

// Tickets are matched three by three into a new room of type 'tag'; skill plays no part in tag.
const skillWindow = { initial: 0, perSecond: 0, max: 0 };
const matchmaking = { room: 'tag', rules: { minPlayers: 3, maxPlayers: 3, fillWaitMs: 5000, skillWindow } };
const port = Number(process.env.PORT ?? 8080); // the backend's HTTP port (0: any free one)
const fleet = await startLocalFleet({ games: { tag: rules }, port, matchmaking });
console.log(`tag rooms at ${fleet.url}`);
