/**
 * The backend's spectator route: POST /spectate { roomId | pool, transport } answers a spectator's
 * token (backend-spectator-issuer.ts) in the shape of a join's answer. It needs a session, as the
 * room routes, and passes the backend's rate limit and a strict zod schema first.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { BackendEnv } from './backend-routes.js';
import { spectateSchema, validate } from './backend-schemas.js';
import type { SpectatorIssuer } from './backend-spectator-issuer.js';

export function addSpectateRoutes(
  app: Hono<BackendEnv>,
  spectators: SpectatorIssuer,
  session: MiddlewareHandler<BackendEnv>,
): void {
  app.post('/spectate', session, validate('json', spectateSchema), async (c) => {
    const { roomId, pool, transport } = c.req.valid('json');
    return c.json(
      roomId !== undefined
        ? await spectators.room(roomId, transport)
        : await spectators.pool(pool as string, transport),
    );
  });
}
