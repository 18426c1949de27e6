/**
 * A redis-server the bench starts itself: on a free loopback port, no persistence (neither RDB
 * nor AOF, so disk writes are not in the figures), in a temporary directory removed at the end.
 * Found on PATH or at REDIS_SERVER_PATH; where there is none, {@link redisServerMissing} says why
 * and the suite reports its Redis rows skipped. Its CPU time is read from /proc (Linux) and its
 * traffic from `INFO stats`, so a suite can count what the engine costs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { sleep } from './child-process.js';

const PATH_ENV = 'REDIS_SERVER_PATH';

function findRedisServer(): string | null {
  const chosen = process.env[PATH_ENV];
  if (chosen !== undefined && chosen !== '') return existsSync(chosen) ? chosen : null;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const dir of dirs)
    if (dir !== '' && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  return null;
}

/** Why there is no redis-server to run, or null when there is one. */
export function redisServerMissing(): string | null {
  if (findRedisServer() !== null) return null;
  const chosen = process.env[PATH_ENV];
  return chosen !== undefined && chosen !== ''
    ? `redis-server not found: ${PATH_ENV}=${chosen} does not exist`
    : `redis-server not installed (none on PATH; ${PATH_ENV} is unset)`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
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
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts one and waits until it answers PING (throws when there is none: see redisServerMissing). */
  static async start(): Promise<BenchRedisServer> {
    const executable = findRedisServer();
    if (executable === null) throw new Error(redisServerMissing() ?? 'redis-server not found');
    const dir = mkdtempSync(join(tmpdir(), 'gw-bench-redis-'));
    const port = await freePort();
    const args = ['--port', `${port}`, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    args.push('--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (data: Buffer) => {
      errors = (errors + data.toString()).slice(-2000);
    });
    const server = new BenchRedisServer(child, port, dir);
    for (const deadline = performance.now() + 10_000; performance.now() < deadline; await sleep(20)) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      if ((await ask(port, 'PING', (r) => r.includes('\r\n')))?.startsWith('+PONG')) return server;
    }
    await server.stop();
    throw new Error(`redis-server did not answer on port ${port}: ${errors}`);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Its CPU time so far (user + system), seconds; null where /proc cannot tell. */
  cpuSeconds(): number | null {
    try {
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
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
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
