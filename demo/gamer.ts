/**
 * The demo's gamer services: accounts, the zaps leaderboard and friends with presence, in
 * PostgreSQL embedded in this process (nothing installed), behind the backend's routes under /api
 * on the demo's own port. A page signs in with a device id it keeps (POST /api/auth) and joins
 * the game with that session, so the server knows which account each player is.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import type { JoinVerdict } from '../src/node.js';
import {
  type Backend,
  createBackend,
  EmbeddedDirectory,
  type GamerServices,
  openGamerServices,
} from '../src/services/index.js';

/** Where the demo's API lives on its port. */
export const DEMO_API_PREFIX = '/api';

export interface DemoGamer {
  readonly gamer: GamerServices;
  readonly backend: Backend;
  /** Answers a request under /api (true), or leaves it alone (false). */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
  /** GameServer's auth: a Bearer session makes the player that account; without one, a guest of the game. */
  auth(request: IncomingMessage): JoinVerdict;
  close(): Promise<void>;
}

export async function startDemoGamer(protocolId: bigint): Promise<DemoGamer> {
  const gamer = await openGamerServices();
  const directory = new EmbeddedDirectory();
  const backend = createBackend({
    directory,
    privateKey: new Uint8Array(randomBytes(32)),
    protocolId,
    gamer,
    sweepIntervalMs: 0,
  });
  const root = new Hono();
  root.route(DEMO_API_PREFIX, backend.app);
  const listener = getRequestListener(root.fetch);
  return {
    gamer,
    backend,
    serve(request, response) {
      const path = request.url ?? '';
      if (path !== DEMO_API_PREFIX && !path.startsWith(`${DEMO_API_PREFIX}/`)) return false;
      void listener(request, response);
      return true;
    },
    auth(request) {
      const header = request.headers.authorization;
      if (header === undefined) return true;
      const session = header.startsWith('Bearer ') ? backend.verifySession(header.slice(7)) : null;
      return session === null ? 'session refused: sign in again' : { userId: session.userId };
    },
    async close() {
      await backend.close();
      await directory.close();
      await gamer.close();
    },
  };
}
