/**
 * `npm start` (or `npm run demo`): starts the demo game's server (demo/server.ts) and prints the
 * URL to open; with `--zones N`, the zoned demo (demo/zoned-server.ts). Flags: `npm start -- --help`.
 */
import { commandLine, flagValue, rangeFlag } from '../scripts/cli.js';
import { startDemoServer } from './server.js';
import { MAX_DEMO_ZONES } from './zone-grid.js';
import { startZonedDemoServer } from './zoned-server.js';

/** An integer flag in [min, max]: `--zones 2.5` is refused rather than rounded. */
function wholeFlag(name: string, text: string, min: number, max: number): number {
  const value = rangeFlag(name, text, min, min, max);
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be a whole number, got ${text}`);
  return value;
}

const args = commandLine({
  name: 'npm start --',
  description:
    'The demo game: a server with bots; open the URL it prints and play in your browser (arrow keys or WASD,\nspace zaps the orb nearest you). The page connects over WebRTC (UDP, the port after --port) or, where that fails,\nWebSocket on the HTTP port; ?transport=webrtc|websocket in the URL forces one.\n`npm start -- --headless` runs the terminal session of bots over UDP instead.',
  flags: {
    host: { arg: 'HOST', help: 'listen address (default 127.0.0.1; 0.0.0.0 for other machines)' },
    port: {
      arg: 'PORT',
      help: 'HTTP, WebSocket and UDP port; WebRTC takes the next UDP port (default 8080; 0: any free one)',
    },
    bots: { arg: 'N', help: "the server's own bots, 0 to 16 (default 4)" },
    public: {
      arg: 'HOST:PORT',
      help: 'the address connect tokens name, when not the listening one',
    },
    'no-webrtc': { kind: 'boolean', help: 'serve no WebRTC (the page plays over WebSocket)' },
    zones: {
      arg: 'N',
      help: "the arena as a zoned world of N zones in worker threads behind one gateway (1 to 16; 4: 2 × 2, else the most square grid); the page draws the borders (GET /zones: the grid, GET /status: the zones' figures; no dashboard)",
    },
  },
});
const port = flagValue(() => Math.floor(rangeFlag('--port', args.port, 8080, 0, 65534)));
const bots = flagValue(() => Math.floor(rangeFlag('--bots', args.bots, 4, 0, 16)));
const zones =
  args.zones === undefined ? null : flagValue(() => wholeFlag('--zones', args.zones!, 1, MAX_DEMO_ZONES));

const options = {
  host: args.host,
  port,
  bots,
  publicAddress: args.public,
  webrtc: !args['no-webrtc'],
};
const demo = await (zones === null
  ? startDemoServer(options)
  : startZonedDemoServer({ ...options, zones })
).catch((error: NodeJS.ErrnoException) => {
  const hint = error.code === 'EADDRINUSE' ? ' (another port: npm start -- --port 8081)' : '';
  process.stderr.write(`ghostwire demo: ${error.message}${hint}\n`);
  process.exit(1);
});
const zoned = zones === null ? '' : ` (${zones} zones)`;
process.stdout.write(`ghostwire demo${zoned}: open ${demo.url}\n(Ctrl-C stops it)\n`);

let stopping = false;
process.on('SIGINT', () => {
  if (stopping) return;
  stopping = true;
  void demo.close().then(() => process.stdout.write('stopped\n'));
});
