/**
 * The demo server's HTTP side shared by the plain and the zoned demo: the page, its bundled script
 * and its source map; any other GET goes to `more` (the dashboard, /zones…), a 404 when it says no.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DemoAssets } from './client-bundle.js';

/** Answers a GET path it knows (true), or leaves the response alone (false). */
export type DemoRoutes = (path: string, response: ServerResponse, query: URLSearchParams) => boolean;

/**
 * The `http` handler GameServer (and ZonedWorld) takes: `api` first (any method: the gamer
 * services' routes), then the page's routes, then `more`.
 */
export function demoHttp(
  assets: DemoAssets,
  more: DemoRoutes,
  api: (request: IncomingMessage, response: ServerResponse) => boolean = () => false,
) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (api(request, response)) return;
    // A request target no URL parser takes ("//[") is the client's error, not the server's end.
    const url = URL.canParse(request.url ?? '/', 'http://demo') ? new URL(request.url!, 'http://demo') : null;
    const path = url === null ? null : url.pathname;
    if (path === null) response.writeHead(400).end();
    else if (request.method !== 'GET') response.writeHead(405).end();
    else if (path === '/' || path === '/index.html')
      sendDemo(response, 'text/html; charset=utf-8', assets.html);
    else if (path === '/client.js') sendDemo(response, 'text/javascript; charset=utf-8', assets.code);
    else if (path === '/client.js.map') sendDemo(response, 'application/json', assets.map);
    else if (!more(path, response, url!.searchParams)) response.writeHead(404).end();
  };
}

/** A 200 the page never caches (the demo's scripts are rebuilt at each start). */
export function sendDemo(response: ServerResponse, type: string, body: string): void {
  response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}
