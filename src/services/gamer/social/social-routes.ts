/**
 * The friends, presence and event stream routes, every one behind the session:
 *
 *   POST   /friends/:accountId         request, or accept theirs       -> { state }
 *   DELETE /friends/:accountId         remove, decline or cancel       -> { state: 'none' }
 *   POST   /friends/:accountId/block   block                           -> { state: 'blocked' }
 *   DELETE /friends/:accountId/block   unblock                         -> { state: 'none' }
 *   GET    /friends?state&limit&cursor one page, friends with presence -> { items, cursor }
 *   POST   /presence { state }         online or away, for oneself     -> { presence }
 *   GET    /events                     Server-Sent Events              -> text/event-stream
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { importOptional } from '../../../transport/optional-dependency.js';
import { Refusal } from '../../backend-refusal.js';
import type { BackendEnv } from '../../backend-routes.js';
import { idSchema, validate } from '../../backend-schemas.js';
import type { GamerContext } from '../gamer-context.js';
import type { EventStreams } from './event-streams.js';
import type { Friends } from './friends.js';
import type { PlayerRate } from './player-rate.js';
import type { Presence } from './presence.js';
import type { SocialLimits } from './social-limits.js';

const { z } = await importOptional('zod', 'ghostwire/services', () => import('zod'));

export interface SocialRouteParts {
  context: GamerContext;
  friends: Friends;
  presence: Presence;
  streams: EventStreams;
  rate: PlayerRate;
  presenceRate: PlayerRate;
  limits: SocialLimits;
}

export function addSocialRoutes(
  app: Hono<BackendEnv>,
  session: MiddlewareHandler<BackendEnv>,
  parts: SocialRouteParts,
): void {
  const { context, friends, presence, streams, rate, presenceRate, limits } = parts;
  const otherParam = z.strictObject({ accountId: idSchema });
  const listQuery = z.strictObject({
    state: z.enum(['friends', 'sent', 'received', 'blocked']).default('friends'),
    limit: z.coerce.number().int().min(1).max(limits.maxPageSize).optional(),
    cursor: idSchema.optional(),
  });
  const presenceBody = z.strictObject({ state: z.enum(['online', 'away']) });

  const limited = (accountId: string) => {
    const wait = rate.take(accountId, context.nowMs());
    if (wait > 0) throw new Refusal(429, `too many friend changes; retry in ${wait} s`);
  };

  app.post('/friends/:accountId', session, validate('param', otherParam), async (c) => {
    const me = c.get('session').userId;
    limited(me);
    return c.json({ state: await friends.request(me, c.req.valid('param').accountId) });
  });
  app.delete('/friends/:accountId', session, validate('param', otherParam), async (c) => {
    const me = c.get('session').userId;
    return c.json({ state: await friends.remove(me, c.req.valid('param').accountId) });
  });
  app.post('/friends/:accountId/block', session, validate('param', otherParam), async (c) => {
    const me = c.get('session').userId;
    limited(me);
    return c.json({ state: await friends.block(me, c.req.valid('param').accountId) });
  });
  app.delete('/friends/:accountId/block', session, validate('param', otherParam), async (c) => {
    const me = c.get('session').userId;
    return c.json({ state: await friends.unblock(me, c.req.valid('param').accountId) });
  });
  app.get('/friends', session, validate('query', listQuery), async (c) => {
    const me = c.get('session').userId;
    const { state, limit, cursor } = c.req.valid('query');
    const page = await friends.page(me, state, { limit, cursor });
    if (state !== 'friends') return c.json(page);
    // Presence is shown to friends only.
    const views = await presence.read(page.items.map((f) => f.accountId));
    return c.json({
      items: page.items.map((f, i) => ({ ...f, presence: views[i] })),
      cursor: page.cursor,
    });
  });

  app.post('/presence', session, validate('json', presenceBody), async (c) => {
    const me = c.get('session').userId;
    const wait = presenceRate.take(me, context.nowMs());
    if (wait > 0) throw new Refusal(429, `too many presence changes; retry in ${wait} s`);
    return c.json({ presence: await presence.choose(me, c.req.valid('json').state) });
  });

  // The session in Authorization only: a token in the URL would land in logs and histories.
  app.get('/events', session, async (c) => {
    const { userId, expiresAt } = c.get('session');
    return streams.open(userId, expiresAt);
  });
}
