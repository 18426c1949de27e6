/**
 * The demo server's recording (GameServer.record): GET /replay.gwr answers the last minute as a
 * .gwr file (docs/replay-format.md), which the page's "Replay the last minute" plays.
 */
import type { ServerResponse } from 'node:http';
import type { Recorder } from '../src/replication/index.js';

/** Seconds the page replays, and the seconds kept (a keyframe's worth more, so a full minute is there). */
export const REPLAY_SECONDS = 60;
export const REPLAY_KEEP_SECONDS = 70;

/** Answers GET /replay.gwr (true), or leaves the response alone (false). */
export function serveReplay(path: string, response: ServerResponse, recording: Recorder | null): boolean {
  if (path !== '/replay.gwr') return false;
  if (recording === null || recording.lastTick < 0) {
    response.writeHead(503, { 'content-type': 'text/plain' }).end('nothing recorded yet');
    return true;
  }
  const bytes = recording.save({ seconds: REPLAY_SECONDS });
  response
    .writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': bytes.length,
      'cache-control': 'no-store',
    })
    .end(bytes);
  return true;
}
