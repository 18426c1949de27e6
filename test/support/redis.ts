/**
 * A real redis-server for the tests: started on a free loopback port with no persistence, in its
 * own temporary directory, stopped at the end, and restartable on the same port (for the recovery
 * tests: a restart without persistence loses every key, as a crashed production server would).
 * Started with `{ appendOnly: true }` it keeps an AOF fsynced on every write in its directory, so
 * what it acknowledged survives a SHUTDOWN or a kill -9 and a start on the same port and directory.
 * Where redis-server is absent the tests report themselves skipped with {@link noRedisReason} (the
 * closing skip summary names them), except where it is required — CI=true or
 * GHOSTWIRE_REQUIRE_REDIS=1 (`.ci/run` installs Debian's redis-server) — where its absence fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.js';

export const REDIS_SERVER_PATH_ENV = 'REDIS_SERVER_PATH';
export const REQUIRE_REDIS_ENV = 'GHOSTWIRE_REQUIRE_REDIS';

/** The redis-server to run, or null: REDIS_SERVER_PATH when set (the only place looked at), else PATH. */
export function findRedisServer(): string | null {
  const chosen = process.env[REDIS_SERVER_PATH_ENV];
  if (chosen !== undefined && chosen !== '') return existsSync(chosen) ? chosen : null;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const path = join(dir, 'redis-server');
    if (existsSync(path)) return path;
  }
  return null;
}

/** The reason every Redis test gives when it is skipped (the closing summary groups by it). */
export function noRedisReason(): string {
  const chosen = process.env[REDIS_SERVER_PATH_ENV];
  const where =
    chosen !== undefined && chosen !== ''
      ? `${REDIS_SERVER_PATH_ENV}=${chosen} does not exist`
      : `none on PATH, and ${REDIS_SERVER_PATH_ENV} is unset`;
  return `redis-server not installed: ${where} (.ci/run installs Debian's redis-server); CI=true or ${REQUIRE_REDIS_ENV}=1 makes this a failure`;
}

/** True where a missing redis-server must fail the run: CI, or the project's own switch. */
export function redisRequired(): boolean {
  return process.env.CI === 'true' || process.env[REQUIRE_REDIS_ENV] === '1';
}

/** Skip option for Redis tests: the reason where it is absent and not required, else false. */
export function redisSkip(): string | false {
  if (findRedisServer() !== null || redisRequired()) return false;
  return noRedisReason();
}

/** One PING; true when the server answers PONG within a short time. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'));
    });
  });
}

/** Servers still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class RedisServer {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    private readonly executable: string,
    readonly port: number,
    private readonly dir: string,
    private readonly appendOnly: boolean,
  ) {}

  /**
   * A running server on a free loopback port; throws naming where it looked when there is none.
   * `appendOnly` keeps its data across restarts (appendonly yes, appendfsync always).
   */
  static async start(options: { appendOnly?: boolean } = {}): Promise<RedisServer> {
    const executable = findRedisServer();
    if (executable === null) throw new Error(`redis-server is required here: ${noRedisReason()}`);
    const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
    const server = new RedisServer(executable, await freePort(), dir, options.appendOnly ?? false);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The running server's process id (undefined while stopped). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Kills the server (kill -9): its data is lost unless it was started with `appendOnly`. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    running.delete(child);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }

  /** Stops it and starts a new one on the same port (empty, unless started with `appendOnly`). */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  /** Stops it cleanly with the SHUTDOWN command (it flushes its AOF first), and waits for it to exit. */
  async shutdown(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null && child.signalCode === null) {
      const socket = createConnection({ host: '127.0.0.1', port: this.port });
      socket.once('error', () => {});
      socket.once('connect', () => socket.end('SHUTDOWN\r\n'));
      await exited;
      socket.destroy();
    }
    this.child = null;
    running.delete(child);
  }

  /** Starts it again after stop() or shutdown(), on the same port and directory. */
  async startAgain(): Promise<void> {
    if (this.child !== null) throw new Error('redis-server is running');
    await this.launch();
  }

  /** Freezes the server (SIGSTOP): it keeps its connections but answers nothing, as a stalled host. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stops it and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const args = ['--port', `${this.port}`, '--bind', '127.0.0.1', '--save', ''];
    args.push(
      ...(this.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    );
    args.push('--dir', this.dir, '--daemonize', 'no', '--loglevel', 'warning');
    const child = spawn(this.executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    running.add(child);
    this.output = '';
    const keep = (data: Buffer) => {
      this.output = (this.output + data.toString()).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `redis-server exited at start (${child.exitCode ?? child.signalCode}): ${this.output}`,
        );
      if (await ping(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.stop();
    throw new Error(`redis-server did not answer on port ${this.port} within 10 s: ${this.output}`);
  }
}
