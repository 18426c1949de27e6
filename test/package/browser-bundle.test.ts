/**
 * The browser bundle (src/browser.ts through esbuild, as `npm run bundle` builds it), checked in
 * Node: nothing of Node's in it, and it runs in a fresh realm that has only what a browser has.
 */
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createContext, runInContext } from 'node:vm';
import { build, transform } from 'esbuild';
import {
  type BrowserBundle,
  browserBundleOptions,
  buildBrowserBundle,
  NODE_GLOBAL_MARKER,
  NODE_GLOBALS,
} from '../../scripts/browser-bundle.js';
import { browserScenario, checkScenarioResult, type ScenarioInput } from '../support/browser-scenario.js';

const INPUT: ScenarioInput = {
  privateKey: Array.from({ length: 32 }, (_, i) => (i * 7 + 1) & 0xff),
  unixNow: 1_700_000_000,
  serverAddress: '10.0.0.100:40000',
};

/** An ES module's text as a script that sets `globalThis.ghostwire` to its exports. */
async function asScript(code: string): Promise<string> {
  return (await transform(code, { format: 'iife', globalName: 'ghostwire', target: 'es2022' })).code;
}

describe('browser bundle', () => {
  let bundle: BrowserBundle;
  before(async () => {
    bundle = await buildBrowserBundle({ markNodeGlobals: true });
  });

  it('bundles everything: no import left outside it, no node: module in it', () => {
    assert.deepEqual(bundle.externalImports, []);
    assert.deepEqual(
      bundle.inputs.filter((path) => path.startsWith('node:')),
      [],
    );
    assert.doesNotMatch(bundle.code, /\bfrom\s*["']node:|\bimport\s*\(\s*["']node:/);
    assert.ok(bundle.inputs.some((path) => path.endsWith('@noble/ciphers/chacha.js')));
    // Browsers keep the pure-JS AEAD: libsodium's WebAssembly (~310 KB) is the Node default only.
    assert.deepEqual(
      bundle.inputs.filter((path) => path.includes('libsodium') || path.endsWith('aead-wasm.ts')),
      [],
    );
    assert.match(bundle.code, /\/\/# sourceMappingURL=ghostwire\.js\.map\s*$/);
    const sources: string[] = JSON.parse(bundle.map).sources;
    assert.ok(sources.includes('../../src/connection/aead.ts'), 'the map points at the TypeScript sources');
  });

  it('references none of Node globals (process, Buffer, require, setImmediate…)', () => {
    const found = NODE_GLOBALS.filter((name) => bundle.code.includes(`${NODE_GLOBAL_MARKER}${name}`));
    assert.deepEqual(found, []);
  });

  it('the checks can fail: the Node entry point is refused for browsers, naming a Node module it imports', async () => {
    const options = browserBundleOptions();
    await assert.rejects(
      build({
        ...options,
        entryPoints: [options.entryPoints[0].replace(/browser\.ts$/, 'node.ts')],
        write: false,
      }),
      // Among every error, not only the message's first five (node-datachannel's imports come first).
      (error: { errors?: { text: string }[] }) =>
        error.errors?.some((e) => e.text.includes('"node:crypto"')) === true,
    );
    const marked = await build({
      ...browserBundleOptions({ markNodeGlobals: true }),
      entryPoints: undefined,
      stdin: {
        contents: 'export const f = () => typeof process === "object" && Buffer.from("a");',
        loader: 'ts',
      },
      write: false,
      outfile: undefined,
    });
    const code = marked.outputFiles[0].text;
    assert.ok(code.includes(`${NODE_GLOBAL_MARKER}process`) && code.includes(`${NODE_GLOBAL_MARKER}Buffer`));
  });

  it('runs in a fresh realm with no Node globals: schema round trip, connect token, netcode handshake', async () => {
    // What a browser offers that the bundle uses (Web Crypto, text codecs), and nothing of Node's.
    const context = createContext({ crypto: webcrypto, TextEncoder, TextDecoder });
    assert.equal(
      runInContext('typeof process + typeof Buffer + typeof require + typeof setImmediate', context),
      'undefined'.repeat(4),
    );
    runInContext(await asScript(bundle.code), context, { filename: 'ghostwire.js' });
    const json = runInContext(
      `JSON.stringify((${browserScenario.toString()})(ghostwire, ${JSON.stringify(INPUT)}))`,
      context,
    ) as string;
    checkScenarioResult(JSON.parse(json), INPUT);
  });
});
