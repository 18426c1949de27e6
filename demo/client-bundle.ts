/**
 * The demo page's script: demo/client.ts bundled by esbuild for browsers (one ES module, minified,
 * source map beside it), in memory when the demo server starts, as scripts/browser-bundle.ts
 * builds the library's bundle. The sources are read from the repository, so a change to the page
 * shows at the next start without a separate build step.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { REPO_ROOT } from '../scripts/browser-bundle.js';

export const CLIENT_ENTRY = `${REPO_ROOT}demo/client.ts`;
export const PAGE = `${REPO_ROOT}demo/public/index.html`;

export interface DemoAssets {
  /** The page (demo/public/index.html). */
  html: string;
  /** The bundled client script and its source map. */
  code: string;
  map: string;
}

/** Builds the client bundle (nothing written) and reads the page. */
export async function buildDemoAssets(): Promise<DemoAssets> {
  const result = await build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    outfile: `${REPO_ROOT}dist/demo/public/client.js`,
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))!.text;
  return { html: readFileSync(PAGE, 'utf8'), code, map };
}
