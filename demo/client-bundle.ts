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

/**
 * One demo script (a .ts under demo/) bundled for browsers in memory: the code and its source map.
 * The page's client and the dashboard are both built this way.
 */
export async function bundleDemoScript(entry: string): Promise<{ code: string; map: string }> {
  const name = entry.slice(entry.lastIndexOf('/') + 1).replace(/\.ts$/, '.js');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    outfile: `${REPO_ROOT}dist/demo/public/${name}`,
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))!.text;
  return { code, map };
}

/** Builds the client bundle (nothing written) and reads the page. */
export async function buildDemoAssets(): Promise<DemoAssets> {
  const { code, map } = await bundleDemoScript(CLIENT_ENTRY);
  return { html: readFileSync(PAGE, 'utf8'), code, map };
}
