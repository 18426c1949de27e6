/**
 * A real PostgreSQL server for the tests: a fresh cluster (initdb) in its own temporary directory,
 * started on a free loopback port with its socket in that directory, stopped at the end, and
 * restartable on the same port and data (the restart tests). fsync is off (a test cluster never
 * outlives its run, and only a machine's crash needs it); every commit is written before it is
 * answered, so what was committed survives the server being killed. PostgreSQL refuses to run as root, so as root
 * (CI) the cluster belongs to the `postgres` user Debian's package creates and both initdb and the
 * server are spawned with that user's uid and gid. Where the binaries are absent the tests report themselves skipped
 * with {@link noPostgresReason}, except where they are required — CI=true or
 * GHOSTWIRE_REQUIRE_POSTGRES=1 (`.ci/run` installs Debian's postgresql) — where that fails.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.js';

export const POSTGRES_BIN_ENV = 'POSTGRES_BIN_DIR';
export const REQUIRE_POSTGRES_ENV = 'GHOSTWIRE_REQUIRE_POSTGRES';

/**
 * The folder holding initdb and postgres, or null: POSTGRES_BIN_DIR when set (the only place looked
 * at), else PATH, else Debian's /usr/lib/postgresql/<newest>/bin (not on PATH there).
 */
export function findPostgresBin(): string | null {
  const chosen = process.env[POSTGRES_BIN_ENV];
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'));
  if (chosen !== undefined && chosen !== '') return has(chosen) ? chosen : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir !== '' && has(dir)) return dir;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions)
      if (has(join(debian, version, 'bin'))) return join(debian, version, 'bin');
  }
  return null;
}

export function noPostgresReason(): string {
  const chosen = process.env[POSTGRES_BIN_ENV];
  const where =
    chosen !== undefined && chosen !== ''
      ? `${POSTGRES_BIN_ENV}=${chosen} holds no initdb and postgres`
      : `not on PATH nor in /usr/lib/postgresql/*/bin, and ${POSTGRES_BIN_ENV} is unset`;
  return `PostgreSQL not installed: ${where} (.ci/run installs Debian's postgresql); CI=true or ${REQUIRE_POSTGRES_ENV}=1 makes this a failure`;
}

export function postgresRequired(): boolean {
  return process.env.CI === 'true' || process.env[REQUIRE_POSTGRES_ENV] === '1';
}

/** Skip option for PostgreSQL tests: the reason where it is absent and not required, else false. */
export function postgresSkip(): string | false {
  if (findPostgresBin() !== null || postgresRequired()) return false;
  return noPostgresReason();
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => finish(true));
  });
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** As root: the postgres user's uid and gid, which own the cluster and run the server. */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export class PostgresServer {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    private readonly bin: string,
    readonly port: number,
    private readonly dir: string,
    private readonly asUser: { uid: number; gid: number } | null,
  ) {}

  /** A fresh cluster, running on a free loopback port, with the database `postgres` and user `postgres`. */
  static async start(): Promise<PostgresServer> {
    const bin = findPostgresBin();
    if (bin === null) throw new Error(`PostgreSQL is required here: ${noPostgresReason()}`);
    const dir = mkdtempSync(join(tmpdir(), 'gw-postgres-'));
    const asUser = postgresUser();
    if (asUser !== null) {
      chownSync(dir, asUser.uid, asUser.gid);
      chmodSync(dir, 0o700);
    }
    const server = new PostgresServer(bin, await freePort(), dir, asUser);
    server.run(join(bin, 'initdb'), [
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    await server.launch();
    return server;
  }

  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /**
   * Stops the server as a crash would (SIGQUIT: an immediate shutdown, its sessions cut, no
   * checkpoint): what it committed survives a start on the same data, after recovery.
   */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    running.delete(child);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  }

  /** Starts it again after stop(), on the same port and data. */
  async startAgain(): Promise<void> {
    if (this.child !== null) throw new Error('postgres is running');
    await this.launch();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs a command to its end (as the postgres user when root). */
  private run(command: string, args: string[]): void {
    execFileSync(command, args, { stdio: 'pipe', cwd: this.dir, ...(this.asUser ?? {}) });
  }

  private async launch(): Promise<void> {
    const args = [
      '-D',
      join(this.dir, 'data'),
      '-p',
      `${this.port}`,
      '-h',
      '127.0.0.1',
      '-k',
      this.dir,
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ];
    const child = spawn(join(this.bin, 'postgres'), args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: this.dir,
      ...(this.asUser ?? {}),
    });
    this.child = child;
    running.add(child);
    this.output = '';
    const keep = (data: Buffer) => {
      this.output = (this.output + data.toString()).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`postgres exited at start (${child.exitCode ?? child.signalCode}): ${this.output}`);
      if (this.output.includes('ready to accept connections') && (await accepts(this.port))) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await this.stop();
    throw new Error(`postgres did not accept connections on port ${this.port} within 20 s: ${this.output}`);
  }
}
