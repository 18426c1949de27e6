/**
 * The browser bundle's build, shared by `npm run bundle` (scripts/bundle.ts) and the tests that
 * build it in memory (test/package/browser-bundle.test.ts, test/package/browser-chromium.test.ts): src/browser.ts
 * bundled by esbuild for browsers as one ES module, minified, with a source map.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';

/** The repository root: this file runs from dist/scripts/. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const BROWSER_ENTRY = `${REPO_ROOT}src/browser.ts`;

/** Where `npm run bundle` writes it (the source map beside it, `.map`). */
export const BROWSER_BUNDLE = `${REPO_ROOT}dist/browser/ghostwire.js`;

/**
 * Node's globals, which a browser lacks. Each is defined to a marker identifier: esbuild's
 * `define` replaces only free references to a global (never a property or method of that name,
 * such as a `process()` method), so a marker in the output is a real reference to the global.
 */
export const NODE_GLOBALS = [
  'process',
  'Buffer',
  'global',
  'require',
  'module',
  'exports',
  '__dirname',
  '__filename',
  'setImmediate',
  'clearImmediate',
];

export const NODE_GLOBAL_MARKER = '__ghostwire_node_global_';

/**
 * esbuild options for the bundle. `platform: 'browser'` makes any Node builtin (`node:…`) a build
 * error rather than an import left in the output. es2022, as tsconfig targets (bigint literals,
 * class fields): every evergreen browser runs it.
 */
export function browserBundleOptions(options: { minify?: boolean; markNodeGlobals?: boolean } = {}) {
  return {
    entryPoints: [BROWSER_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: options.minify ?? true,
    sourcemap: true,
    outfile: BROWSER_BUNDLE,
    metafile: true,
    logLevel: 'silent',
    define: options.markNodeGlobals
      ? Object.fromEntries(NODE_GLOBALS.map((name) => [name, `${NODE_GLOBAL_MARKER}${name}`]))
      : {},
  } satisfies BuildOptions;
}

export interface BrowserBundle {
  /** The bundle's JavaScript. */
  code: string;
  /** Its source map (JSON). */
  map: string;
  /** Imports esbuild left outside the bundle (none expected: everything is bundled). */
  externalImports: string[];
  /** Every source file bundled, relative to the repository root or node_modules. */
  inputs: string[];
}

/** Builds the bundle in memory (nothing written). */
export async function buildBrowserBundle(
  options: { minify?: boolean; markNodeGlobals?: boolean } = {},
): Promise<BrowserBundle> {
  const result = await build({ ...browserBundleOptions(options), write: false });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))!.text;
  const externalImports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  return { code, map, externalImports, inputs: Object.keys(result.metafile.inputs) };
}

/** Writes the bundle and its source map to {@link BROWSER_BUNDLE}. */
export function writeBrowserBundle(bundle: BrowserBundle): void {
  mkdirSync(dirname(BROWSER_BUNDLE), { recursive: true });
  writeFileSync(BROWSER_BUNDLE, bundle.code);
  writeFileSync(`${BROWSER_BUNDLE}.map`, bundle.map);
}

export interface BundleSizes {
  /** Not minified. */
  raw: number;
  minified: number;
  /** The minified bundle gzipped at level 9. */
  gzipped: number;
}

/** The sizes `npm run bundle` reports, in bytes. */
export function bundleSizes(raw: string, minified: string): BundleSizes {
  const encoder = new TextEncoder();
  return {
    raw: encoder.encode(raw).length,
    minified: encoder.encode(minified).length,
    gzipped: gzipSync(minified, { level: 9 }).length,
  };
}
