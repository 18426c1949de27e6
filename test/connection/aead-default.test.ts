/**
 * Which AEAD the Node entry points make the default, in fresh processes: libsodium's WebAssembly
 * one, and node:crypto's where libsodium cannot be loaded (a module resolve hook refuses it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const distSrc = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

/** Imports `entry` in a new Node process (with `nodeOptions`) and returns the default AEAD's name. */
function defaultAfterImport(entry: string, nodeOptions: string[] = []): string {
  const script = `await import(${JSON.stringify(distSrc(entry))});
const { defaultAead } = await import(${JSON.stringify(distSrc('connection/aead.js'))});
console.log(defaultAead().name);`;
  const run = spawnSync(process.execPath, [...nodeOptions, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

describe('the default AEAD under Node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ghostwire-aead-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ghostwire/node, /websocket and /services register the WebAssembly backend', () => {
    for (const entry of ['node.js', 'websocket.js', 'services/index.js'])
      assert.equal(defaultAfterImport(entry), 'libsodium (WebAssembly)', entry);
  });

  it('falls back to node:crypto when libsodium cannot be loaded', () => {
    const hook = join(dir, 'refuse-libsodium.mjs');
    writeFileSync(
      hook,
      `export async function resolve(specifier, context, next) {
  if (specifier === 'libsodium') throw new Error('refused by the test');
  return next(specifier, context);
}`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)});`,
    );
    assert.equal(defaultAfterImport('node.js', ['--import', `file://${register}`]), 'node:crypto');
  });

  it('the browser-safe entry leaves the pure-JS backend', () => {
    assert.equal(defaultAfterImport('index.js'), '@noble/ciphers');
  });
});
