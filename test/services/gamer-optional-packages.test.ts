/**
 * The gamer services' stores load their packages only when opened: ghostwire/services imports,
 * serves a backend and signs guests in with kysely, pg, PGlite and ioredis all missing; opening
 * gamer services then fails at the call naming the package to install. Each case runs in a child
 * process whose module resolution hides them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const hide = fileURLToPath(new URL('../support/hidden-packages.js', import.meta.url));
const services = new URL('../../src/services/index.js', import.meta.url).href;
const STORES = ['kysely', 'pg', '@electric-sql/pglite', 'ioredis'];

function run(hidden: string[], code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', hide, '--input-type=module', '-e', code],
      { env: { ...process.env, HIDDEN_PACKAGES: hidden.join(',') }, timeout: 30_000 },
      (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(stderr || error.message)),
    );
  });
}

describe('gamer services and optional packages', () => {
  it('ghostwire/services serves a backend with none of the stores installed', async () => {
    const out = await run(
      STORES,
      `
      import { createBackend, EmbeddedDirectory } from '${services}';
      const backend = createBackend({ directory: new EmbeddedDirectory(), privateKey: new Uint8Array(32), protocolId: 1n, sweepIntervalMs: 0 });
      const answer = await backend.app.request('/auth', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ann"}' });
      console.log('auth ' + answer.status);
      await backend.close();
    `,
    );
    assert.match(out, /^auth 200$/m);
  });

  for (const [store, options, missing] of [
    ['embedded', '{}', 'kysely'],
    ['embedded, kysely installed', '{}', '@electric-sql/pglite'],
    ['a PostgreSQL server', "{ database: { postgres: 'postgres://127.0.0.1:1/x' } }", 'pg'],
  ] as const)
    it(`openGamerServices on ${store} names the missing package: ${missing}`, async () => {
      const hidden = missing === 'kysely' ? STORES : STORES.filter((p) => p !== 'kysely');
      const out = await run(
        hidden,
        `
        import { openGamerServices } from '${services}';
        try { await openGamerServices(${options}); console.log('opened'); }
        catch (error) { console.log(error.name + ': ' + error.message); }
      `,
      );
      assert.match(
        out,
        new RegExp(
          `MissingDependencyError: .*needs the "${missing.replace('/', '\\/')}" package: npm install ${missing.replace('/', '\\/')}@`,
        ),
      );
    });
});
