/**
 * The player storage routes, all on the signed-in player's own documents unless `owner` names
 * another player for a public read:
 *   PUT    /storage/:collection/:key { value, version?, read?, write? }
 *   GET    /storage/:collection/:key[?owner=<accountId>]
 *   DELETE /storage/:collection/:key[?version=n]
 *   GET    /storage/:collection[?cursor=&limit=]
 * A conflict answers 409 with the current `version`; a 'server' document refuses players (403).
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { importOptional } from '../../../transport/optional-dependency.js';
import { Refusal } from '../../backend-refusal.js';
import type { BackendEnv } from '../../backend-routes.js';
import { idSchema, validate } from '../../backend-schemas.js';
import type { PlayerStorage, StorageRefusal } from './player-storage.js';
import { STORAGE_NAME } from './storage-limits.js';

const { z } = await importOptional('zod', 'ghostwire gamer services', () => import('zod'));

const nameSchema = z.string().regex(STORAGE_NAME, 'must be 1-64 of letters, digits, "_", "-" and "."');
const documentParams = z.object({ collection: nameSchema, key: nameSchema });
const collectionParams = z.object({ collection: nameSchema });
const versionSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const decimal = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a whole number')
  .transform(Number);

function refusal(done: StorageRefusal, maxDocuments: number): Refusal {
  switch (done.refused) {
    case 'version':
      return new Refusal(
        409,
        done.currentVersion === 0
          ? 'version conflict: there is no such document'
          : `version conflict: the document is at version ${done.currentVersion}`,
        { version: done.currentVersion },
      );
    case 'server-only':
      return new Refusal(403, 'this document is written by the server only');
    case 'full':
      return new Refusal(409, `at most ${maxDocuments} documents a player: delete one first`);
    case 'missing':
      return new Refusal(404, 'no such document');
    case 'no-account':
      return new Refusal(403, 'no account for this session: storage needs an account (POST /auth)');
  }
}

export function addStorageRoutes(
  app: Hono<BackendEnv>,
  session: MiddlewareHandler<BackendEnv>,
  storage: PlayerStorage,
): void {
  const { maxPageSize, maxDocumentsPerPlayer } = storage.limits;
  const putSchema = z.strictObject({
    value: z.unknown().superRefine((value, ctx) => {
      const problem = storage.valueProblem(value);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
    version: versionSchema.optional(),
    read: z.enum(['owner', 'public']).optional(),
    write: z.enum(['owner', 'server']).optional(),
  });
  const readQuery = z.object({ owner: idSchema.optional() });
  const deleteQuery = z.object({ version: decimal.optional() });
  const listQuery = z.object({
    cursor: nameSchema.optional(),
    limit: decimal.pipe(z.number().min(1).max(maxPageSize)).optional(),
  });

  app.put(
    '/storage/:collection/:key',
    session,
    validate('param', documentParams),
    validate('json', putSchema),
    async (c) => {
      const { collection, key } = c.req.valid('param');
      const { value, version, read, write } = c.req.valid('json');
      if (write === 'server') throw new Refusal(403, 'only the server makes server-written documents');
      const done = await storage.put('player', c.get('session').userId, collection, key, value, {
        version,
        read,
        write,
      });
      if ('refused' in done) throw refusal(done, maxDocumentsPerPlayer);
      return c.json({ collection, key, version: done.version });
    },
  );

  app.get(
    '/storage/:collection/:key',
    session,
    validate('param', documentParams),
    validate('query', readQuery),
    async (c) => {
      const { collection, key } = c.req.valid('param');
      const me = c.get('session').userId;
      const owner = c.req.valid('query').owner ?? me;
      const document = await storage.readAs(owner, collection, key, owner !== me);
      // Another's owner-only document is answered as absent: its existence is not told either.
      if (document === null) throw new Refusal(404, 'no such document');
      return c.json(document);
    },
  );

  app.delete(
    '/storage/:collection/:key',
    session,
    validate('param', documentParams),
    validate('query', deleteQuery),
    async (c) => {
      const { collection, key } = c.req.valid('param');
      const { version } = c.req.valid('query');
      const done = await storage.remove('player', c.get('session').userId, collection, key, version);
      if ('refused' in done) throw refusal(done, maxDocumentsPerPlayer);
      return c.json({ collection, key, version: done.version });
    },
  );

  app.get(
    '/storage/:collection',
    session,
    validate('param', collectionParams),
    validate('query', listQuery),
    async (c) => {
      const { collection } = c.req.valid('param');
      const { cursor, limit } = c.req.valid('query');
      return c.json(await storage.list(c.get('session').userId, collection, { cursor, limit }));
    },
  );
}
