/**
 * The gamer services' Redis connections (ioredis, loaded only when Redis is configured): one for
 * commands, one for subscriptions. Like the directory's, a call never waits in an offline queue
 * nor is resent after a reconnection: it reaches Redis now or rejects (a 503 to the player).
 */
import type { Redis, RedisOptions } from 'ioredis';
import { requireOptional } from '../../transport/optional-dependency.js';

export interface GamerRedisOptions {
  /** redis://host:port/db (or rediss://); overrides host and port in `redis`. */
  url?: string;
  /** ioredis options (host, port, password, tls, ...). Its keyPrefix is ignored: see `keyPrefix`. */
  redis?: RedisOptions;
  /** Put before every key and channel (default 'gw:gamer:'), so games can share a server. */
  keyPrefix?: string;
  /** A command without an answer this long rejects (default 2000 ms: a stalled server). */
  commandTimeoutMs?: number;
}

export interface GamerRedis {
  readonly commands: Redis;
  readonly subscriber: Redis;
  readonly prefix: string;
  close(): Promise<void>;
}

export async function openGamerRedis(options: GamerRedisOptions, timeoutMs = 5000): Promise<GamerRedis> {
  const prefix = options.keyPrefix ?? 'gw:gamer:';
  if (typeof prefix !== 'string') throw new TypeError('openGamerServices: redis.keyPrefix must be a string');
  const settings: RedisOptions = {
    ...options.redis,
    keyPrefix: undefined,
    commandTimeout: options.commandTimeoutMs ?? options.redis?.commandTimeout ?? 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: options.redis?.retryStrategy ?? ((times) => Math.min(50 * times, 500)),
  };
  const { Redis: RedisClient } = requireOptional<typeof import('ioredis')>(
    'ioredis',
    'gamer services on Redis',
  );
  const make = () =>
    options.url === undefined ? new RedisClient(settings) : new RedisClient(options.url, settings);
  const commands = make();
  const subscriber = make();
  for (const connection of [commands, subscriber]) connection.on('error', () => {}); // reconnects; calls report
  const close = async () => {
    commands.disconnect();
    subscriber.disconnect();
  };
  try {
    await Promise.all([commands, subscriber].map((c) => ready(c, timeoutMs)));
  } catch (error) {
    await close();
    throw error;
  }
  return { commands, subscriber, prefix, close };
}

function ready(connection: Redis, timeoutMs: number): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off('ready', onReady);
      reject(new Error(`gamer services: Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    connection.once('ready', onReady);
  });
}
