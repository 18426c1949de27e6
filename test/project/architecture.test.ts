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

const files = sources(src).map((path) => ({
  path: path.slice(src.length),
  imports: [...readFileSync(path, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]),
}));

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
});
