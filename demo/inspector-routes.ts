/**
 * The dashboard's Inspector tab, server side (the network inspector, GameServer.inspector()):
 * GET /inspect/clients (the connected players, JSON), /inspect/stream?client=N (server-sent
 * events: the client's newest packet trace as a `packet` event, at most 5 a second), /inspect/who?entity=ID
 * (the clients holding it, JSON) and /inspect/watchers (how many traces are attached, JSON). The
 * stream attaches the trace on its first subscriber for a client and detaches it on its last, so
 * with the tab closed the server traces nothing. The demo serves it to anyone, as it serves the
 * whole dashboard: a real game puts it behind its own authentication (it shows every client's data).
 */
import type { ServerResponse } from 'node:http';
import type { GamePacketTrace, GameServer } from '../src/node.js';
import { sendDemo } from './page-routes.js';

/** At most this many packets a second per stream: the page shows a table, not every packet. */
const PACKETS_PER_SECOND = 5;

/** Answers the /inspect paths; false for any other path. */
export function serveInspector(
  path: string,
  query: URLSearchParams,
  response: ServerResponse,
  game: GameServer,
): boolean {
  const inspector = game.inspector();
  const json = (value: unknown) => sendDemo(response, 'application/json', JSON.stringify(value));
  if (path === '/inspect/clients')
    json(game.simulation.players.map((p) => ({ index: p.index, avatar: p.entity?.id ?? -1 })));
  else if (path === '/inspect/watchers') json({ watchers: inspector.watcherCount });
  else if (path === '/inspect/who') {
    const id = Number(query.get('entity'));
    if (!Number.isInteger(id) || id < 0 || id >= game.simulation.world.capacity)
      response.writeHead(400).end('entity must be an entity id');
    else json({ entity: id, holders: inspector.whoSees(id) });
  } else if (path === '/inspect/stream') {
    const client = Number(query.get('client'));
    if (!game.simulation.players.some((p) => p.index === client))
      response.writeHead(400).end('client must be a connected player index');
    else stream(response, (onPacket) => inspector.watch(client, onPacket));
  } else return false;
  return true;
}

/** Server-sent events: the newest packet, PACKETS_PER_SECOND at most, until the page goes. */
function stream(
  response: ServerResponse,
  watch: (onPacket: (packet: GamePacketTrace) => void) => () => void,
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  response.write('retry: 2000\n\n');
  let newest: GamePacketTrace | null = null;
  const stop = watch((packet) => {
    newest = packet;
  });
  const timer = setInterval(() => {
    if (newest === null) return;
    response.write(`event: packet\ndata: ${JSON.stringify(newest)}\n\n`);
    newest = null;
  }, 1000 / PACKETS_PER_SECOND);
  response.on('close', () => {
    clearInterval(timer);
    stop();
  });
}
