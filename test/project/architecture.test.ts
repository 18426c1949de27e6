import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
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
  'zones',
];

/** The only sources that may use Node's modules: the server transports, the native AEAD, the zones' Redis adapters, and services/ (Node-only). */
const NODE_ONLY = new Set([
  'transport/udp-transport.ts',
  'transport/websocket-server-transport.ts',
  'transport/websocket-server-options.ts',
  'transport/websocket-peer.ts',
  'connection/aead-node.ts',
  'transport/optional-dependency.ts',
  'game/game-server.ts',
  'game/game-host.ts',
  'game/server-transports.ts',
  'game/join-endpoint.ts',
  'game/udp-opener.ts',
  'zones/redis-zone-connection.ts',
  'zones/redis-zone-feed.ts',
  'zones/redis-zone-store.ts',
  'zones/zone-supervisor.ts',
  'zones/zone-worker.ts',
  'zones/zoned-world.ts',
  'zones/zoned-world-redis.ts',
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

/** What each sub-folder of lockstep/ may import from lockstep/ (below it: links and math). */
const P2P_CONCERNS: Record<string, readonly string[]> = {
  math: ['math'],
  links: ['links', 'math'],
  lockstep: ['lockstep', 'links', 'math'],
  rollback: ['rollback', 'links', 'math'],
};

/** The source paths (relative to src/, `.js` as written) a file's relative imports point at. */
function relativeTargets(file: { path: string; imports: string[] }): string[] {
  return file.imports.filter((i) => i.startsWith('.')).map((i) => posix.join(posix.dirname(file.path), i));
}

/**
 * Files that export one class yet are named for the wider thing they hold; the class is one part.
 * Every other file that exports exactly one class (errors aside) is named after it.
 */
const FILE_CLASS_EXCEPTIONS: Record<string, string> = {
  'channels/message.ts': 'defineMessage and the message types; MessageFactory builds them',
  'connection/packets.ts': 'the netcode packet formats; PacketCodec is their codec',
  'lockstep/links/peer-packet.ts': 'the peer packet format; PeerPacketCrypto seals it',
  'lockstep/links/rendezvous-wire.ts': 'the rendezvous wire format; ChannelCrypto seals it',
  'schema/generate-emitter.ts': "the code generator's helpers; Emitter is one",
  'services/peer-sessions.ts': 'peer session ids and rendezvous options; PeerTokenMinter mints for them',
  'services/room-channels.ts': 'channels routed to rooms: roomChannel, routeChannels, RoutedChannel',
  'transport/webrtc-offer.ts': 'reading WebRTC offers; OfferRateLimit bounds them',
  'transport/webrtc-server-options.ts': "the server's options and the counters it reports",
  'transport/websocket-server-options.ts': "the server's options and the counters it reports",
};

/** A class name in kebab case, as its file is named (WebRtc and WebSocket are one word each). */
function kebab(name: string): string {
  return name
    .replace(/WebRtc/g, 'Webrtc')
    .replace(/WebSocket/g, 'Websocket')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/**
 * Declarations whose doc mentions ms without being a time in ms themselves (the rule below reads
 * doc comments, not types).
 */
const MS_NAME_EXCEPTIONS: Record<string, string> = {
  'replication/replication-server.ts flow': 'the flow-mode options object; its fields carry the unit',
  // The gamer services' records and events name their point in time `at` (unix ms), as GamerEvent does.
  'join/gamer/achievements-client.ts at': 'a point in time, unix ms, like ...At',
  'join/gamer/leaderboards-client.ts at': 'a point in time, unix ms, like ...At',
  'services/gamer/progress/leaderboards.ts at': 'a point in time, unix ms, like ...At',
};

/**
 * Properties, getters and options whose doc comment says the value is in ms (or milliseconds),
 * as `path name`.
 */
function documentedInMs(file: { path: string }): string[] {
  const text = readFileSync(join(src, file.path), 'utf8');
  const declaration =
    /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*(?:readonly |private |protected |static |get )*(\w+)(\??:|\(\)|\s*=)/g;
  return [...text.matchAll(declaration)]
    .filter(([, doc]) => /\bms\b|milliseconds/.test(doc))
    .map(([, , name]) => `${file.path} ${name}`);
}

/**
 * Internal parts whose counters their owner writes or reads directly; each owner reports them
 * through its own stats().
 */
const COUNTER_FIELD_EXCEPTIONS = new Set([
  'services/rendezvous-relay.ts',
  'services/room-seating.ts',
  'services/client-hooks.ts',
  'replication/event-hub.ts',
  'transport/network-simulator.ts',
  'latency/input-buffer.ts',
  // The gamer services' players' stats (game statistics, not counters): gamer.stats, openGamerServices({ stats }).
  'join/gamer-client.ts',
  'services/gamer/gamer-services.ts',
  'services/gamer/progress/progress-definitions.ts',
]);

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
    classes: [...text.matchAll(/^export (?:abstract )?class (\w+)(?: extends (\w+))?/gm)]
      .filter((m) => !m[1].endsWith('Error') && m[2] !== 'Error')
      .map((m) => m[1]),
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
const OPTIONAL_PACKAGES = [
  'ws',
  'node-datachannel',
  'hono',
  '@hono/',
  'zod',
  'ioredis',
  'kysely',
  'pg',
  '@electric-sql/',
];
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
  // The gamer services load their store's packages when opened, not with ghostwire/services.
  ['services/gamer/gamer-database.ts', 'test/services/gamer-optional-packages.test.ts'],
  ['services/gamer/gamer-migrations.ts', 'test/services/gamer-optional-packages.test.ts'],
  ['services/gamer/social/friends.ts', 'test/services/gamer-optional-packages.test.ts'],
  ['services/gamer/gamer-redis.ts', 'test/services/gamer-optional-packages.test.ts'],
  // ioredis loads when a RedisDirectory is made.
  ['services/redis-directory.ts', 'test/services/gamer-optional-packages.test.ts'],
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
      for (const target of relativeTargets(file)) {
        const below = LAYERS.indexOf(target.split('/')[0]);
        assert.ok(below >= 0 && below <= layer, `${file.path} imports ${target}, which is not below it`);
      }
    }
  });

  it('lockstep/ keeps its concerns apart: turns and rollback share only peer links and deterministic math', () => {
    const concerns = files.filter((f) => f.path.startsWith('lockstep/') && f.path.split('/').length === 3);
    assert.ok(concerns.length > 30, `found ${concerns.length} files in lockstep/ sub-folders`);
    for (const file of concerns) {
      const allowed = P2P_CONCERNS[file.path.split('/')[1]];
      assert.ok(
        allowed !== undefined,
        `${file.path}: lockstep/ has the sub-folders ${Object.keys(P2P_CONCERNS)}`,
      );
      for (const target of relativeTargets(file).filter((t) => t.startsWith('lockstep/'))) {
        const concern = target.split('/')[1];
        assert.ok(allowed.includes(concern), `${file.path} imports ${target}`);
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

  it('a file that exports one class is named after it, kebab-case (a group prefix allowed: rendezvous-relay.ts)', () => {
    const misnamed = files
      .filter((f) => f.classes.length === 1 && !(f.path in FILE_CLASS_EXCEPTIONS))
      .filter((f) => {
        const base = f.path.split('/').pop()!.replace(/\.ts$/, '');
        const name = kebab(f.classes[0]);
        return base !== name && !base.endsWith(`-${name}`);
      })
      .map((f) => `${f.path} holds ${f.classes[0]}`);
    assert.deepEqual(misnamed, []);
    const stale = Object.keys(FILE_CLASS_EXCEPTIONS).filter(
      (path) => files.find((f) => f.path === path)?.classes.length !== 1,
    );
    assert.deepEqual(stale, [], 'exceptions that no longer export exactly one class');
  });

  it("public classes keep their parts' callbacks private (no exported class implements a *Host)", () => {
    const entries = files.filter((f) => /^(index|node|browser)\.ts$|^\w+\/index\.ts$/.test(f.path));
    const exported = new Set(
      entries.flatMap((f) =>
        [...readFileSync(join(src, f.path), 'utf8').matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
          m[1].split(',').map(
            (name) =>
              name
                .trim()
                .replace(/^type /, '')
                .split(' as ')
                .pop() ?? '',
          ),
        ),
      ),
    );
    assert.ok(exported.has('RollbackSession'), 'finds the exported names');
    const hosts = files.flatMap((f) =>
      [
        ...readFileSync(join(src, f.path), 'utf8').matchAll(
          /^export class (\w+)[^{]*\bimplements [^{]*Host\b/gm,
        ),
      ]
        .map((m) => m[1])
        .filter((name) => exported.has(name))
        .map((name) => `${f.path}: ${name}`),
    );
    assert.deepEqual(hosts, []);
  });

  it('a value documented in ms has a name ending in Ms (times are seconds otherwise)', () => {
    const documented = files.flatMap(documentedInMs);
    assert.ok(
      documented.includes('packet/reliable-endpoint.ts rttMs'),
      'finds the declarations documented in ms',
    );
    // A point in time named ...At (unix milliseconds, as Date.now gives) is the one exception.
    const misnamed = documented.filter((key) => !/(Ms|MS|At)$/.test(key) && !(key in MS_NAME_EXCEPTIONS));
    assert.deepEqual(misnamed, []);
    const stale = Object.keys(MS_NAME_EXCEPTIONS).filter((key) => {
      const [path, name] = key.split(' ');
      const file = files.find((f) => f.path === path);
      return file === undefined || !readFileSync(join(src, path), 'utf8').includes(name);
    });
    assert.deepEqual(stale, []);
  });

  it('counters are reported by a stats() method: no public stats or counters field or getter', () => {
    const fields = files
      .filter((f) => !COUNTER_FIELD_EXCEPTIONS.has(f.path))
      .filter((f) =>
        /^ {2}(?:readonly )?(?:stats|counters)\b\s*[:=]|^ {2}get (?:stats|counters)\(/m.test(
          readFileSync(join(src, f.path), 'utf8'),
        ),
      )
      .map((f) => f.path);
    assert.deepEqual(fields, []);
    const methods = files.filter((f) =>
      /^ {2}stats\([^)]*\): /m.test(readFileSync(join(src, f.path), 'utf8')),
    );
    assert.ok(methods.length > 20, `${methods.length} files with a stats() method`);
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

  it("ghostwire/services loads the gamer services' stores only when they are opened (no kysely, pg, PGlite or ioredis at import)", () => {
    const { visited, packages } = moduleGraph('services/index.ts');
    assert.ok(visited.has('services/gamer/social/friends.ts'), 'the walk reaches the gamer services');
    const stores = [...packages].filter((p) => /^(kysely|pg|@electric-sql\/|ioredis)(\/|$)/.test(p));
    assert.deepEqual(stores, [], `ghostwire/services loads ${stores.join(', ')} at import`);
  });

  it('the check can fail: the walk finds ws under ghostwire/websocket and hono under ghostwire/webrtc', () => {
    assert.ok(moduleGraph('websocket.ts').packages.has('ws'));
    assert.ok([...moduleGraph('webrtc.ts').packages].some((p) => p.startsWith('hono')));
  });
});
