/**
 * The zod schemas of every body, path parameter and query the backend reads, and the validators
 * that refuse the rest with 400 and the issues summarized as one reason string.
 */
import type { ValidationTargets } from 'hono';
import type { ZodType } from 'zod';
import { importOptional } from '../transport/optional-dependency.js';

// zod and @hono/zod-validator are optional packages, which only ghostwire/services needs.
const { z } = await importOptional('zod', 'ghostwire/services', () => import('zod'));
const { zValidator } = await importOptional(
  '@hono/zod-validator',
  'ghostwire/services',
  () => import('@hono/zod-validator'),
);

export const transportSchema = z.enum(['udp', 'websocket', 'webrtc']);

/**
 * Room, seat and ticket ids: randomId's alphabet (base64url), 1..64 characters. Nothing else may
 * pass: ids are spliced into directory keys, and "<roomId>:seats" would name another record.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"');

export const roomTypeSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits and _ . : -');

const MAX_KEYS = 32;

/** A room's creation options: any JSON object of up to 32 keys (the room type checks the rest). */
export const roomOptionsSchema = z
  .record(z.string().max(64), z.unknown())
  .refine((o) => Object.keys(o).length <= MAX_KEYS, `at most ${MAX_KEYS} keys`);

/** Ticket properties: flat string / number / boolean values, as RoomMetadata. */
export const propertiesSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(256), z.number(), z.boolean()]))
  .refine((o) => Object.keys(o).length <= MAX_KEYS, `at most ${MAX_KEYS} keys`);

/** What POST /auth reads when the game gives no schema of its own: a guest's display name. */
export const guestAuthSchema = z.object({ name: z.string().trim().min(1).max(32) });

export const joinOrCreateSchema = z.object({
  name: roomTypeSchema,
  options: roomOptionsSchema.optional(),
  transport: transportSchema,
});

/** options: the join options the room's onAuth and onJoin read. */
export const joinSchema = z.object({ transport: transportSchema, options: roomOptionsSchema.optional() });

export const reconnectSchema = z.object({
  seatId: idSchema,
  transport: transportSchema,
  /** The seat's room, so a room whose process stopped answers 410 rather than 404. */
  roomId: idSchema.optional(),
});

/**
 * Strict: a `party` (or any unknown key) is refused rather than ignored — a player cannot queue
 * others; parties are queued by the game's server (backend-matchmake-routes.ts).
 */
export const matchmakeSchema = z.strictObject({
  pool: z.string().min(1).max(64),
  skill: z.number().min(-1e9).max(1e9).optional(),
  properties: propertiesSchema.optional(),
});

/** POST /spectate: a room by id, or a pool (a running room of it is chosen); strict, one of the two. */
export const spectateSchema = z
  .strictObject({
    roomId: idSchema.optional(),
    pool: z.string().min(1).max(64).optional(),
    transport: transportSchema,
  })
  .refine(
    (body) => (body.roomId === undefined) !== (body.pool === undefined),
    'give roomId or pool, one of them',
  );

export const roomParamSchema = z.object({ roomId: idSchema });
export const ticketParamSchema = z.object({ ticketId: idSchema });
export const transportQuerySchema = z.object({ transport: transportSchema });
/** A matchmaking poll's query: the transport is needed for a room match, not for a peer session. */
export const pollQuerySchema = z.object({ transport: transportSchema.optional() });

/** A short reason from zod's issues: "name: Too small…; transport: Invalid option…" (first 5). */
export function summarizeIssues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? 'body' : path}: ${issue.message}`;
  });
  if (error.issues.length > 5) parts.push(`and ${error.issues.length - 5} more`);
  return parts.join('; ').slice(0, 500);
}

const JSON_TYPE = /^application\/json(;|$)/i;

/**
 * The zod validator for one target, answering 400 { error: reason } on a mismatch. A body must be
 * JSON (415 otherwise): a form or text body would reach the schema as an empty object.
 */
export function validate<T extends keyof ValidationTargets, S extends ZodType>(target: T, schema: S) {
  return zValidator(target, schema, (result, c) => {
    if (target === 'json' && !JSON_TYPE.test(c.req.header('Content-Type') ?? ''))
      return c.json({ error: 'body must be application/json' }, 415);
    if (!result.success) return c.json({ error: summarizeIssues(result.error) }, 400);
  });
}
