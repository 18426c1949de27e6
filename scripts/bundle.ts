/**
 * `npm run bundle`: builds the browser client entry (src/browser.ts) into dist/browser/ghostwire.js
 * (one ES module, minified, with its source map beside it) and prints its size raw (not minified),
 * minified, and minified + gzipped (level 9), the figure a page pays over the wire.
 */
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BROWSER_BUNDLE,
  buildBrowserBundle,
  bundleSizes,
  REPO_ROOT,
  writeBrowserBundle,
} from './browser-bundle.js';
import { commandLine } from './cli.js';

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  commandLine({
    name: 'npm run bundle --',
    description:
      'Builds dist/browser/ghostwire.js (ESM, minified, source map) from src/browser.ts with esbuild and\nprints its size raw, minified and minified + gzipped (level 9). A few seconds.',
    flags: {},
  });
  const minified = await buildBrowserBundle();
  const raw = await buildBrowserBundle({ minify: false });
  writeBrowserBundle(minified);
  const sizes = bundleSizes(raw.code, minified.code);
  console.log(`${relative(REPO_ROOT, BROWSER_BUNDLE)} (+ .map), ${minified.inputs.length} source files`);
  console.log(`  raw (not minified)    ${sizes.raw.toLocaleString('en')} bytes (${kib(sizes.raw)})`);
  console.log(
    `  minified              ${sizes.minified.toLocaleString('en')} bytes (${kib(sizes.minified)})`,
  );
  console.log(`  minified + gzip -9    ${sizes.gzipped.toLocaleString('en')} bytes (${kib(sizes.gzipped)})`);
}

// Run only as the entry point, so importing this file runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
