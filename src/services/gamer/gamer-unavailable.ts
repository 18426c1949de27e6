/**
 * A database or Redis that cannot be reached answers 503 with the reason, never 500: the request
 * took no effect (every write is one transaction) and may be retried. Errors are told apart by
 * their codes: node-postgres and PostgreSQL's connection and shutdown classes, PGlite closed,
 * ioredis's connection errors and our RedisUnavailableError.
 */
import { Refusal } from '../backend-refusal.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/** The 503 for an error that says a store is unreachable, or null for any other error. */
export function unavailableRefusal(error: unknown): Refusal | null {
  if (error instanceof Refusal) return null;
  const e = error as { code?: unknown; message?: unknown; name?: unknown } | null;
  if (e === null || typeof e !== 'object') return null;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const name = typeof e.name === 'string' ? e.name : '';
  // PostgreSQL SQLSTATE 08xxx: connection exceptions; 57P01-57P03: admin or crash shutdown, cannot connect now.
  if (/^08/.test(code) || /^57P0[1-3]$/.test(code) || NETWORK_CODES.has(code))
    return new Refusal(503, `database unavailable: ${brief(message || code)}`);
  if (
    message.includes('Connection terminated') ||
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Client has encountered a connection error') ||
    message === 'PGlite is closed'
  )
    return new Refusal(503, `database unavailable: ${brief(message)}`);
  if (
    name === 'RedisUnavailableError' ||
    message.includes("Stream isn't writeable") ||
    message.includes('Connection is closed')
  )
    return new Refusal(503, `redis unavailable: ${brief(message)}`);
  return null;
}

function brief(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 120);
}
