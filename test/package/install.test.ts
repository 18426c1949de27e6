/**
 * The package as a user installs it: `npm pack` once, then `npm install` of that tarball into
 * scratch projects in the temp folder, each with only the optional packages its case needs
 * (--prefer-offline: the npm cache from the repository's own install serves them). Also an install
 * from a git URL (a clone of HEAD, built by `prepare`), and the TypeScript floor: the shipped
 * declarations type-check without skipLibCheck under the oldest TypeScript docs/install.md names.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** The oldest TypeScript that type-checks the declarations (5.6 fails: generic typed arrays). */
const TYPESCRIPT_FLOOR = '5.7.2';
const OPTIONAL = Object.keys(PACKAGE.peerDependencies);
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** The versions our own tests run, so the cache has them. */
const pinned = (...names: string[]) => names.map((name) => `${name}@${PACKAGE.devDependencies[name]}`);

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Without the npm_* variables of an enclosing `npm test` (its lifecycle and package settings). */
function childEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.has(key.toLowerCase())),
  );
}

function run(command: string, args: string[], cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `code` as an ES module in `project` (so `ghostwire` resolves from its node_modules). */
function node(project: string, code: string): Promise<Result> {
  return run(process.execPath, ['--input-type=module', '-e', code], project);
}

const scratch: string[] = [];

function newProject(label: string): string {
  const project = mkdtempSync(join(tmpdir(), `ghostwire-install-${label}-`));
  scratch.push(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: `scratch-${label}`, version: '1.0.0', type: 'module', private: true }),
  );
  return project;
}

async function install(project: string, specs: string[], extra: string[] = []): Promise<Result> {
  return run('npm', ['install', ...NPM_FLAGS, ...extra, ...specs], project);
}

async function installed(label: string, specs: string[], extra: string[] = []): Promise<string> {
  const project = newProject(label);
  const result = await install(project, specs, extra);
  assert.equal(result.code, 0, `npm install ${specs.join(' ')}:\n${result.stderr}`);
  return project;
}

function present(project: string): string[] {
  return OPTIONAL.filter((name) => existsSync(join(project, 'node_modules', name)));
}

/** Prints the .node files loaded after running `code` (ESM, top-level await allowed). */
const ADDONS = `console.log('addons:' + JSON.stringify(process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node'))));`;

function addons(result: Result): string[] {
  const line = result.stdout.split('\n').find((l) => l.startsWith('addons:'));
  assert.ok(line, `no addon report:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(line.slice('addons:'.length)) as string[];
}

async function importFails(project: string, specifier: string): Promise<string> {
  const result = await node(project, `await import('${specifier}');`);
  assert.notEqual(result.code, 0, `import('${specifier}') should fail here`);
  return result.stderr;
}

function isOffline(result: Result): boolean {
  return /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network/i.test(result.stderr);
}

describe('install from the packed tarball', { timeout: 300_000 }, () => {
  let tarball = '';
  const projects: Record<string, string> = {};

  before(async () => {
    const packed = mkdtempSync(join(tmpdir(), 'ghostwire-pack-'));
    scratch.push(packed);
    // dist/ is built (this file runs from it); --ignore-scripts keeps prepare's output off the JSON.
    const result = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', packed],
      REPO,
    );
    assert.equal(result.code, 0, result.stderr);
    const [{ filename }] = JSON.parse(result.stdout) as [{ filename: string }];
    tarball = join(packed, filename);
    // The scratch installs in parallel: npm's cache takes concurrent readers.
    const cases: [string, string[], string[]?][] = [
      ['bare', []],
      ['omit', [], ['--omit=optional']],
      ['websocket', pinned('ws')],
      ['webrtc', pinned('node-datachannel', 'hono', '@hono/node-server')],
      ['services', pinned('hono', '@hono/node-server', 'zod', '@hono/zod-validator')],
    ];
    await Promise.all(
      cases.map(async ([label, specs, extra]) => {
        projects[label] = await installed(label, [tarball, ...specs], extra);
      }),
    );
  });
  after(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('ships dist/src with declarations and no source maps', () => {
    const dist = join(projects.bare, 'node_modules', 'ghostwire', 'dist', 'src');
    const names = readdirSync(dist, { recursive: true }) as string[];
    assert.ok(names.includes('index.js') && names.includes('index.d.ts') && names.includes('node.js'));
    assert.deepEqual(
      names.filter((name) => name.endsWith('.map')),
      [],
    );
  });

  it('a plain install brings none of the optional packages', () => {
    assert.deepEqual(present(projects.bare), []);
    assert.deepEqual(present(projects.omit), []);
  });

  it('codec-only: ghostwire encodes and decodes, loading no native addon', async () => {
    const result = await node(
      projects.bare,
      `import { t } from 'ghostwire';
      import { compile } from 'ghostwire/schema';
      const codec = compile(t.object({ x: t.uint16(), name: t.string(16) }));
      const result = codec.decode(codec.encode({ x: 513, name: 'tag' }));
      if (!result.ok || result.value.x !== 513 || result.value.name !== 'tag') throw new Error(JSON.stringify(result));
      ${ADDONS}`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(addons(result), []);
  });

  it('UDP-only: ghostwire/node opens a UdpTransport on loopback, loading no native addon', async () => {
    const result = await node(
      projects.bare,
      `import { UdpTransport } from 'ghostwire/node';
      const udp = await UdpTransport.open({ address: '127.0.0.1:0' });
      await udp.close();
      ${ADDONS}`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(addons(result), []);
  });

  it('--omit=optional: the root and node entries import', async () => {
    const result = await node(
      projects.omit,
      `const root = await import('ghostwire'); const nodeEntry = await import('ghostwire/node');
      if (typeof root.t !== 'object' || typeof nodeEntry.UdpTransport !== 'function') throw new Error('missing');`,
    );
    assert.equal(result.code, 0, result.stderr);
  });

  it('WebSocket: with ws, ghostwire/websocket serves on loopback; without it, the import names ws', async () => {
    const result = await node(
      projects.websocket,
      `import { WebSocketServerTransport } from 'ghostwire/websocket';
      const server = await WebSocketServerTransport.open({ address: '127.0.0.1:0' });
      await server.close();`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(present(projects.websocket), ['ws']);
    assert.match(
      await importFails(projects.bare, 'ghostwire/websocket'),
      /ghostwire\/websocket needs the "ws" package: npm install ws@8/,
    );
  });

  it('WebRTC: with node-datachannel and hono, ghostwire/webrtc loads the addon; without, the import names it', async () => {
    const result = await node(
      projects.webrtc,
      `import { createSignalingApp, WebRtcServerTransport } from 'ghostwire/webrtc';
      if (typeof WebRtcServerTransport !== 'function' || typeof createSignalingApp !== 'function') throw new Error('missing');
      ${ADDONS}`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      addons(result).some((path) => path.endsWith('node_datachannel.node')),
      'the native addon is loaded',
    );
    assert.match(
      await importFails(projects.bare, 'ghostwire/webrtc'),
      /ghostwire\/webrtc needs the "node-datachannel" package: npm install node-datachannel@0\.33/,
    );
    assert.match(
      await importFails(projects.websocket, 'ghostwire/webrtc'),
      /ghostwire\/webrtc needs the "node-datachannel" package/,
    );
  });

  it('services: with hono and zod, ghostwire/services serves a backend; ioredis only for a RedisDirectory', async () => {
    const result = await node(
      projects.services,
      `import { createBackend, EmbeddedDirectory, RedisDirectory, serveBackend } from 'ghostwire/services';
      const backend = createBackend({ directory: new EmbeddedDirectory(), privateKey: new Uint8Array(32), protocolId: 1n });
      const served = await serveBackend(backend, { port: 0 });
      const answer = await fetch(served.url + '/no-such-route');
      await served.close();
      console.log('status:' + answer.status);
      try { new RedisDirectory(); console.log('made a RedisDirectory without ioredis'); }
      catch (error) { console.log('redis:' + error.message); }
      process.exit(0);`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /status:404/);
    assert.match(
      result.stdout,
      /redis:RedisDirectory \(ghostwire\/services\) needs the "ioredis" package: npm install ioredis@6/,
    );
    assert.ok(!present(projects.services).includes('ioredis'));
    assert.match(
      await importFails(projects.bare, 'ghostwire/services'),
      /ghostwire\/services needs the "(hono|@hono\/node-server|zod|@hono\/zod-validator)" package: npm install /,
    );
  });

  it(`TypeScript ${TYPESCRIPT_FLOOR} type-checks every entry point's declarations without skipLibCheck`, async (t) => {
    const project = newProject('types');
    const specs = [tarball, ...pinned(...OPTIONAL, '@types/node'), `typescript@${TYPESCRIPT_FLOOR}`];
    const result = await install(project, specs);
    if (result.code !== 0 && isOffline(result)) {
      t.skip(`typescript@${TYPESCRIPT_FLOOR} is not in the npm cache and the registry is unreachable`);
      return;
    }
    assert.equal(result.code, 0, result.stderr);
    const compilerOptions = {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
    // Every entry point the package declares (package.json "exports"), '' for the root.
    const exportsField = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).exports as Record<
      string,
      unknown
    >;
    const entries = Object.keys(exportsField).map((key) => key.slice(1));
    writeFileSync(
      join(project, 'index.ts'),
      `${entries.map((entry, i) => `import * as entry${i} from 'ghostwire${entry}';`).join('\n')}
      import { t } from 'ghostwire';
      import { compile } from 'ghostwire/schema';
      const codec = compile(t.object({ x: t.uint16() }));
      const decoded = codec.decode(codec.encode({ x: 1 }));
      const x: number = decoded.ok ? decoded.value.x : 0;
      export const all = [${entries.map((_, i) => `entry${i}`).join(', ')}, x];\n`,
    );
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const check = await run(process.execPath, [tsc, '-p', project], project);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('install from a git URL', { timeout: 300_000 }, () => {
  it('npm install git+file://<clone of HEAD> builds dist/ through prepare, and the package imports', async (t) => {
    if (!existsSync(join(REPO, '.git'))) {
      t.skip('not a git checkout');
      return;
    }
    const clone = mkdtempSync(join(tmpdir(), 'ghostwire-clone-'));
    const project = newProject('git');
    try {
      const cloned = await run('git', ['clone', '--quiet', '--depth', '1', `file://${REPO}`, clone], REPO);
      assert.equal(cloned.code, 0, cloned.stderr);
      assert.ok(!existsSync(join(clone, 'dist')), 'the clone has no dist/: prepare must build it');
      const result = await install(project, [`git+file://${clone}`]);
      assert.equal(result.code, 0, result.stderr);
      assert.ok(existsSync(join(project, 'node_modules', 'ghostwire', 'dist', 'src', 'node.js')));
      assert.deepEqual(present(project), []);
      const imported = await node(
        project,
        `const m = await import('ghostwire/node'); if (typeof m.UdpTransport !== 'function') throw new Error('missing');`,
      );
      assert.equal(imported.code, 0, imported.stderr);
    } finally {
      rmSync(clone, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  });
});
