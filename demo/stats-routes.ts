/**
 * The dashboard's HTTP side: GET /stats (the samples kept, JSON), GET /stats/stream (server-sent
 * events, one `sample` a second), and the dashboard page (demo/public/dashboard.html), its script
 * (demo/dashboard.ts, bundled by esbuild in memory at start as the game's page is) and uPlot's CSS.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { REPO_ROOT } from '../scripts/browser-bundle.js';
import { bundleDemoScript } from './client-bundle.js';
import type { DemoStats } from './stats.js';

export interface DashboardAssets {
  html: string;
  code: string;
  map: string;
  css: string;
}

/** Builds the dashboard's script (nothing written) and reads its page and uPlot's stylesheet. */
export async function buildDashboardAssets(): Promise<DashboardAssets> {
  const { code, map } = await bundleDemoScript(`${REPO_ROOT}demo/dashboard.ts`);
  const css = readFileSync(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css'), 'utf8');
  return { html: readFileSync(`${REPO_ROOT}demo/public/dashboard.html`, 'utf8'), code, map, css };
}

/** Answers the dashboard's and the stats' paths (GET); false for any other path. */
export function serveStats(
  path: string,
  response: ServerResponse,
  stats: DemoStats,
  assets: DashboardAssets,
): boolean {
  const send = (type: string, body: string) =>
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  if (path === '/dashboard' || path === '/dashboard.html') send('text/html; charset=utf-8', assets.html);
  else if (path === '/dashboard.js') send('text/javascript; charset=utf-8', assets.code);
  else if (path === '/dashboard.js.map') send('application/json', assets.map);
  else if (path === '/uPlot.min.css') send('text/css; charset=utf-8', assets.css);
  else if (path === '/stats') send('application/json', JSON.stringify({ samples: stats.samples() }));
  else if (path === '/stats/stream') stream(response, stats);
  else return false;
  return true;
}

/** Server-sent events: each new sample as a `sample` event until the page goes. */
function stream(response: ServerResponse, stats: DemoStats): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  response.write('retry: 2000\n\n');
  const unsubscribe = stats.subscribe((sample) => {
    response.write(`event: sample\ndata: ${JSON.stringify(sample)}\n\n`);
  });
  response.on('close', unsubscribe);
}
