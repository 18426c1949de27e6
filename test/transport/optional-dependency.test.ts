/**
 * transport/optional-dependency.ts: a missing optional package becomes an Error naming it and the
 * command that installs it; any other failure passes unchanged; the install hints agree with the
 * peer ranges package.json declares.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  importOptional,
  MissingDependencyError,
  OPTIONAL_PACKAGES,
  requireOptional,
} from '../../src/transport/optional-dependency.js';

const notFound = (message: string, code = 'ERR_MODULE_NOT_FOUND') =>
  Object.assign(new Error(message), { code });

describe('optional dependencies', () => {
  it('a missing package rejects with what needs it and the install command', async () => {
    const cause = notFound(
      "Cannot find package 'ws' imported from /app/dist/src/transport/websocket-server.js",
    );
    await assert.rejects(
      importOptional('ws', 'ghostwire/websocket', () => Promise.reject(cause)),
      (error: unknown) => {
        assert.ok(error instanceof MissingDependencyError);
        assert.equal(error.message, 'ghostwire/websocket needs the "ws" package: npm install ws@8');
        assert.equal(error.packageName, 'ws');
        assert.equal(error.cause, cause);
        return true;
      },
    );
  });

  it("a package's own missing dependency, or any other error, passes unchanged", async () => {
    const inner = notFound("Cannot find package 'denque' imported from /app/node_modules/ioredis/built/x.js");
    await assert.rejects(
      importOptional('ioredis', 'RedisDirectory', () => Promise.reject(inner)),
      (error) => error === inner,
    );
    const broken = new SyntaxError('Unexpected token');
    await assert.rejects(
      importOptional('hono', 'ghostwire/services', () => Promise.reject(broken)),
      (error) => error === broken,
    );
  });

  it('an installed package loads with its own exports', async () => {
    const ws = await importOptional('ws', 'ghostwire/websocket', () => import('ws'));
    assert.equal(typeof ws.WebSocketServer, 'function');
    const ioredis = requireOptional<typeof import('ioredis')>('ioredis', 'RedisDirectory');
    assert.equal(typeof ioredis.Redis, 'function');
  });

  it('the install hints name a version inside the peer range package.json declares', () => {
    const url = new URL('../../../package.json', import.meta.url);
    const { peerDependencies, peerDependenciesMeta } = JSON.parse(readFileSync(url, 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    assert.deepEqual(Object.keys(OPTIONAL_PACKAGES).sort(), Object.keys(peerDependencies).sort());
    for (const [name, hint] of Object.entries(OPTIONAL_PACKAGES)) {
      assert.ok(
        peerDependencies[name].startsWith(`^${hint}.`),
        `${name}: ${peerDependencies[name]} vs @${hint}`,
      );
      assert.equal(peerDependenciesMeta[name]?.optional, true, name);
    }
  });
});
