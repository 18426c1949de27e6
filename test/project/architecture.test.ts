import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The compiled test lives in dist/test/project; the sources are three folders up.
const src = fileURLToPath(new URL('../../../src/', import.meta.url));
const testRoot = fileURLToPath(new URL('../../../test/', import.meta.url));

/** Folders of test/ that hold helpers, not tests. */
const TEST_HELPERS = new Set(['support', 'fixtures']);

/** Layers from the bottom up: a file may import its own layer or any layer below it. */
const LAYERS = [
  'random',
  'time',
  'transport',
  'bits',
  'serialize',
  'schema',
  'packet',
  'connection',
  'channels',
  'replication',
  'latency',
  'lockstep',
  'join',
  'game',
  'services',
];

/** The only sources that may use Node's modules: the server transports, the native AEAD, and services/ (Node-only). */
const NODE_ONLY = new Set([
  'transport/udp-transport.ts',
  'transport/websocket-server.ts',
  'transport/websocket-server-options.ts',
  'transport/websocket-peer.ts',
  'connection/aead-node.ts',
  'transport/optional-dependency.ts',
  'game/game-server.ts',
  'game/server-transports.ts',
  'game/udp-opener.ts',
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const files = sources(src).map((path) => {
  const text = readFileSync(path, 'utf8');
  return {
    path: path.slice(src.length),
    text,
    imports: [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]),
    // What loads at run time: type-only imports and re-exports are erased; dynamic imports count.
    runtimeImports: [
      ...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm),
      ...text.matchAll(/^import\s+'([^']+)'/gm),
      ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ].map((m) => m[1]),
    staticImports: [
      ...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm),
      ...text.matchAll(/^import\s+'([^']+)'/gm),
    ].map((m) => m[1]),
  };
});

/** The built entry modules, beside the built tests (dist/src). */
const built = (entry: string): Promise<Record<string, unknown>> =>
  import(new URL(`../../src/${entry}`, import.meta.url).href);

/** The browser-safe expert entry points (package.json "exports"), which ghostwire/browser carries. */
const BROWSER_SAFE_SUBPATHS = [
  'serialize/index.js',
  'schema/index.js',
  'packet/index.js',
  'connection/index.js',
  'channels/index.js',
  'replication/index.js',
  'latency/index.js',
  'lockstep/index.js',
  'transport/index.js',
];

/** Packages a user installs only for the entry points that need them (WebSocket, WebRTC, services). */
const OPTIONAL_PACKAGES = ['ws', 'node-datachannel', 'hono', '@hono/', 'zod', 'ioredis'];
const isOptional = (spec: string): boolean =>
  OPTIONAL_PACKAGES.some((p) =>
    p.endsWith('/') ? spec.startsWith(p) : spec === p || spec.startsWith(`${p}/`),
  );

/**
 * Sources whose dynamic imports load only when a feature is used, not when the module loads, with
 * the test that shows it at run time: the walk does not follow them.
 */
const LAZY_IMPORTS = new Map([
  // GameServer loads the browser transports' modules only to serve them.
  ['game/server-transports.ts', 'test/game/game-optional-packages.test.ts'],
]);

/** Every source an entry loads at run time (following relative imports) and the packages they import. */
function moduleGraph(entry: string): { visited: Set<string>; packages: Set<string> } {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const visited = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string): void => {
    if (visited.has(path)) return;
    visited.add(path);
    const file = byPath.get(path);
    assert.ok(file, `${path} is not a source file`);
    for (const spec of LAZY_IMPORTS.has(path) ? file.staticImports : file.runtimeImports) {
      if (spec.startsWith('.')) visit(join(path, '..', spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { visited, packages };
}

describe('architecture', () => {
  it('finds the sources', () => assert.ok(files.length > 10));

  it('core layers import nothing from node: (they run in browsers)', () => {
    const offenders = files.filter(
      (f) =>
        !NODE_ONLY.has(f.path) &&
        !f.path.startsWith('services/') &&
        f.imports.some((i) => i.startsWith('node:')),
    );
    assert.deepEqual(
      offenders.map((f) => f.path),
      [],
    );
  });

  it('imports point down the layers only', () => {
    for (const file of files) {
      const layer = LAYERS.indexOf(file.path.split('/')[0]);
      if (layer < 0) continue;
      for (const spec of file.imports.filter((i) => i.startsWith('../'))) {
        const target = LAYERS.indexOf(spec.split('/')[1]);
        assert.ok(target >= 0 && target <= layer, `${file.path} imports ${spec}, which is not below it`);
      }
    }
  });

  it('tests sit one folder deep, in a folder per layer (what npm test runs: dist/test/*/*.test.js)', () => {
    const tests = sources(testRoot)
      .map((path) => path.slice(testRoot.length))
      .filter((path) => path.endsWith('.test.ts'));
    assert.ok(tests.length > 100, `found ${tests.length} test files`);
    const misplaced = tests.filter((path) => {
      const parts = path.split('/');
      return parts.length !== 2 || TEST_HELPERS.has(parts[0]);
    });
    assert.deepEqual(misplaced, []);
  });

  it('no source re-exports with `export *`: every entry point lists its names', () => {
    const offenders = files.filter((f) => /^\s*export \*/m.test(f.text)).map((f) => f.path);
    assert.deepEqual(offenders, []);
  });

  it('the root entry point (ghostwire) exports at most 100 names', async () => {
    const names = Object.keys(await built('index.js'));
    assert.ok(names.length > 0 && names.length <= 100, `${names.length} names: ${names.join(', ')}`);
  });

  it('ghostwire/node has every name of ghostwire; ghostwire/browser every browser-safe public name', async () => {
    const root = Object.keys(await built('index.js'));
    const node = new Set(Object.keys(await built('node.js')));
    assert.deepEqual(
      root.filter((name) => !node.has(name)),
      [],
      'missing from src/node.ts',
    );
    const browser = new Set(Object.keys(await built('browser.js')));
    for (const entry of ['index.js', ...BROWSER_SAFE_SUBPATHS]) {
      const missing = Object.keys(await built(entry)).filter((name) => !browser.has(name));
      assert.deepEqual(missing, [], `names of src/${entry} missing from src/browser.ts`);
    }
  });

  it('ghostwire/node loads no optional package (its module graph, from the sources)', () => {
    const { visited, packages } = moduleGraph('node.ts');
    assert.ok(
      visited.has('transport/udp-transport.ts') && packages.has('node:dgram'),
      'the walk follows imports',
    );
    const optional = [...packages].filter(isOptional);
    assert.deepEqual(optional, [], `ghostwire/node loads ${optional.join(', ')}`);
  });

  it('the check can fail: the walk finds ws under ghostwire/websocket and hono under ghostwire/webrtc', () => {
    assert.ok(moduleGraph('websocket.ts').packages.has('ws'));
    assert.ok([...moduleGraph('webrtc.ts').packages].some((p) => p.startsWith('hono')));
  });
});
