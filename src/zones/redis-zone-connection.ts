/**
 * One ioredis connection for the zone layer's Redis adapters (the store and the feed), set up as
 * the directory's are: ioredis is loaded only when one is made (it is an optional package), a
 * command never waits in an offline queue nor is resent after a reconnection (a script either
 * reaches Redis now or rejects, and one that may have run is not run twice), and while Redis is
 * unreachable a call rejects within about `readyWaitMs` with a RedisUnavailableError.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { RedisUnavailableError, untilRedisReady } from '../services/redis-directory.js';
import { requireOptional } from '../transport/optional-dependency.js';

export interface RedisZoneConnectionOptions {
  /** redis://host:port/db (or rediss://); overrides host and port in `redis`. */
  url?: string;
  /** ioredis options (host, port, password, tls, ...). Its keyPrefix is ignored: see `keyPrefix`. */
  redis?: RedisOptions;
  /** Put before every key and channel, so worlds can share a server. */
  keyPrefix?: string;
  /** How long a call made while Redis is unreachable waits for it before rejecting (default 100 ms). */
  readyWaitMs?: number;
  /** A command without an answer this long rejects (default 2000 ms: a stalled server). */
  commandTimeoutMs?: number;
}

export class RedisZoneConnection {
  readonly redis: Redis;
  private readonly readyWaitMs: number;
  private lastError: Error | null = null;
  private closed = false;

  /**
   * `what` names the user in errors; `subscriber` makes a connection that keeps what it is asked
   * while Redis is away and sends it on reconnection (SUBSCRIBE is idempotent, unlike a script).
   */
  constructor(
    options: RedisZoneConnectionOptions,
    private readonly what: string,
    subscriber = false,
  ) {
    this.readyWaitMs = options.readyWaitMs ?? 100;
    const settings: RedisOptions = {
      ...options.redis,
      keyPrefix: undefined,
      commandTimeout: options.commandTimeoutMs ?? options.redis?.commandTimeout ?? 2000,
      enableOfflineQueue: subscriber,
      enableAutoPipelining: !subscriber && (options.redis?.enableAutoPipelining ?? true),
      maxRetriesPerRequest: subscriber ? null : 0,
      autoResendUnfulfilledCommands: subscriber,
      retryStrategy: options.redis?.retryStrategy ?? ((times) => Math.min(50 * times, 500)),
    };
    if (subscriber) delete settings.commandTimeout;
    const { Redis } = requireOptional<typeof import('ioredis')>('ioredis', what);
    this.redis = options.url === undefined ? new Redis(settings) : new Redis(options.url, settings);
    // Connection errors are answered by reconnecting; calls report the latest one.
    this.redis.on('error', (error: Error) => {
      this.lastError = error;
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves once connected; rejects with a RedisUnavailableError after `waitMs`. */
  untilReady(waitMs: number): Promise<void> {
    const connection = this.redis;
    return untilRedisReady(connection, waitMs, () => {
      const why =
        this.lastError === null ? connection.status : `${connection.status}: ${this.lastError.message}`;
      return new RedisUnavailableError(`${this.what}: Redis unavailable (${why})`);
    });
  }

  /** Runs one command; connection failures become RedisUnavailableError, Redis's own errors pass. */
  async run<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error(`${this.what} is closed`);
    if (this.redis.status !== 'ready') await this.untilReady(this.readyWaitMs);
    try {
      return await call(this.redis);
    } catch (error) {
      if ((error as { name?: string } | null)?.name === 'ReplyError') throw error;
      throw new RedisUnavailableError(`${this.what}: Redis unavailable (${(error as Error).message})`, {
        cause: error,
      });
    }
  }

  close(): void {
    this.closed = true;
    this.redis.disconnect();
  }
}
