/**
 * A redis-server the bench starts itself: on a free loopback port, no persistence (neither RDB
 * nor AOF, so disk writes are not in the figures), in a temporary directory removed at the end.
 * Found on PATH or at REDIS_SERVER_PATH; where there is none, {@link redisServerMissing} says why
 * and the suite reports its Redis rows skipped. Its CPU time is read from /proc (Linux) and its
 * traffic from `INFO stats`, so a suite can count what the engine costs.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { findRedisServer, noRedisReason, RedisServer } from '../../test/support/redis.js';

/** Why there is no redis-server to run, or null when there is one. */
export function redisServerMissing(): string | null {
  return findRedisServer() === null ? noRedisReason() : null;
}

/**
 * One inline command on a new connection; resolves with the raw reply once `done` says it is
 * whole, or null on an error or after 2 s.
 */
function ask(port: number, command: string, done: (reply: string) => boolean): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (value: string | null) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(2000, () => finish(null));
    socket.once('error', () => finish(null));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (data) => {
      reply += data.toString('latin1');
      if (done(reply)) finish(reply);
    });
  });
}

/** A whole RESP bulk string reply: `$<length>\r\n<bytes>\r\n`. */
function wholeBulk(reply: string): boolean {
  const end = reply.indexOf('\r\n');
  if (end < 0) return false;
  const length = Number(reply.slice(1, end));
  return reply.startsWith('-') || length < 0 || reply.length >= end + 2 + length + 2;
}

export class BenchRedisServer {
  private constructor(private readonly server: RedisServer) {}

  /** Starts one (no persistence) and waits until it answers PING; throws when there is none (see redisServerMissing). */
  static async start(): Promise<BenchRedisServer> {
    return new BenchRedisServer(await RedisServer.start());
  }

  get port(): number {
    return this.server.port;
  }

  get url(): string {
    return this.server.url;
  }

  /** Its CPU time so far (user + system), seconds; null where /proc cannot tell. */
  cpuSeconds(): number | null {
    try {
      const stat = readFileSync(`/proc/${this.server.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, fields 14 and 15 of stat (12 and 13 after the command), in clock ticks (100 Hz).
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return null;
    }
  }

  /** Bytes it has read from and written to its clients so far (`INFO stats`); null when it does not say. */
  async trafficBytes(): Promise<{ input: number; output: number } | null> {
    const reply = await ask(this.port, 'INFO stats', wholeBulk);
    if (reply === null) return null;
    const field = (name: string) => Number(new RegExp(`\\n${name}:(\\d+)`).exec(reply)?.[1] ?? Number.NaN);
    const input = field('total_net_input_bytes');
    const output = field('total_net_output_bytes');
    return Number.isFinite(input) && Number.isFinite(output) ? { input, output } : null;
  }

  /** Kills it and removes its directory. */
  stop(): Promise<void> {
    return this.server.dispose();
  }
}
