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
import type { DemoAccountHooks } from './rules.js';

/** How often the bots accept the friend requests they were sent. */
const BOT_ACCEPT_MS = 2000;

/** Where the demo's API lives on its port. */
export const DEMO_API_PREFIX = '/api';

export interface DemoGamer {
  readonly gamer: GamerServices;
  readonly backend: Backend;
  /** For the rules: a signed-in player's hits count on the zaps leaderboard. */
  readonly hooks: DemoAccountHooks;
  /** Calls to the services that failed (logged once each kind; the game plays on). */
  readonly failures: number;
  /** Sessions for `count` bots, each its own account named "Bot n" (the same accounts at each start). */
  botSessions(count: number): Promise<string[]>;
  /** Answers a request under /api (true), or leaves it alone (false). */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
  /** GameServer's auth: a Bearer session makes the player that account; without one, a guest of the game. */
  auth(request: IncomingMessage): JoinVerdict;
  close(): Promise<void>;
}

/** The demo's stat and its leaderboard: orbs zapped, all time. */
export const DEMO_GAMER_OPTIONS = {
  stats: { zaps: 'sum' },
  leaderboards: { zaps: { stat: 'zaps', order: 'desc', reset: 'never' } },
} as const;

export async function startDemoGamer(protocolId: bigint): Promise<DemoGamer> {
  const gamer = await openGamerServices(DEMO_GAMER_OPTIONS);
  let failures = 0;
  const seen = new Set<string>();
  const failed = (what: string) => (error: unknown) => {
    failures++;
    if (seen.has(what)) return;
    seen.add(what);
    console.error(`demo: gamer services: ${what} failed (the game plays on):`, error);
  };
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
  const call = async (path: string, body: unknown, session?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (session !== undefined) headers.authorization = `Bearer ${session}`;
    const response = await backend.app.request(path, {
      method: path === '/account' ? 'PATCH' : 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { session?: string; error?: string };
    if (!response.ok) throw new Error(`${path}: ${response.status} ${answer.error}`);
    return answer;
  };
  const acceptRequests = async (session: string) => {
    const headers = { authorization: `Bearer ${session}` };
    const page = await backend.app.request('/friends?state=received&limit=50', { headers });
    if (!page.ok) throw new Error(`/friends: ${page.status}`);
    const { items } = (await page.json()) as { items: { accountId: string }[] };
    for (const { accountId } of items)
      await backend.app.request(`/friends/${accountId}`, { method: 'POST', headers });
  };
  let befriending: ReturnType<typeof setInterval> | null = null;
  return {
    gamer,
    backend,
    get failures() {
      return failures;
    },
    hooks: {
      // In the arena: friends see "in match"; leaving ends it (online while the page is open).
      joined(userId) {
        gamer.presence.set(userId, { state: 'in-match', roomId: 'arena' }).catch(failed('presence'));
      },
      left(userId) {
        gamer.presence.clear(userId).catch(failed('presence'));
      },
      hit(userId) {
        gamer.stats.update(userId, { zaps: 1 }).catch(failed('a zap on the leaderboard'));
      },
    },
    async botSessions(count) {
      const sessions = await Promise.all(
        Array.from({ length: count }, async (_, n) => {
          // A device id of this start only: the data is in memory, new at each start.
          const { session } = await call('/auth', {
            device: `demo-bot-${randomBytes(12).toString('base64url')}`,
          });
          await call('/account', { displayName: `Bot ${n + 1}` }, session).catch(() => {});
          return session!;
        }),
      );
      // The bots accept every friend request, so a lone visitor can have friends to see in the arena.
      befriending = setInterval(() => {
        for (const session of sessions) acceptRequests(session).catch(failed('a bot accepting friends'));
      }, BOT_ACCEPT_MS);
      befriending.unref();
      return sessions;
    },
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
      if (befriending !== null) clearInterval(befriending);
      await backend.close();
      await directory.close();
      await gamer.close();
    },
  };
}
