/**
 * A GameServer loads the browser transports' packages only when it serves them: without `ws` (and
 * without node-datachannel, hono, @hono/node-server) a default server serves what it can, a UDP
 * server loads none of them, and a list naming a missing transport fails at start naming the
 * packages to install. Each case runs in a child process whose module resolution hides them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const hide = fileURLToPath(new URL('../support/hidden-packages.js', import.meta.url));
const src = (path: string) => new URL(`../../src/${path}`, import.meta.url).href;
const game = new URL('../support/test-game.js', import.meta.url).href;

/** Runs `code` (an ES module) with `hidden` packages unresolvable; resolves with its stdout, or rejects with stderr. */
function run(hidden: string[], code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', hide, '--input-type=module', '-e', code],
      { env: { ...process.env, HIDDEN_PACKAGES: hidden.join(',') }, timeout: 30_000 },
      (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(stderr || error.message)),
    );
  });
}

const start = (options: string) => `
  import '${src('game/udp-opener.js')}';
  import { GameServer } from '${src('game/game-server.js')}';
  import { arenaRules, emptyLog } from '${game}';
  try {
    const server = await GameServer.start(arenaRules(emptyLog()), ${options});
    console.log('served ' + server.stats().transports.join(','));
    await server.close();
  } catch (error) {
    console.log('refused: ' + error.message);
  }
`;

describe('GameServer and optional packages', () => {
  const browserPackages = ['ws', 'node-datachannel', 'hono', '@hono/node-server'];

  it('by default serves UDP alone when no browser transport package is installed', async () => {
    const out = await run(browserPackages, start('{ port: 0 }'));
    assert.match(out, /^served udp$/m);
  });

  it('serves WebRTC without ws, and WebSocket without node-datachannel', async () => {
    assert.match(await run(['ws'], start('{ port: 0 }')), /^served udp,webrtc$/m);
    assert.match(await run(['node-datachannel'], start('{ port: 0 }')), /^served udp,websocket$/m);
  });

  it('ghostwire/node (GameServer and GameClient with it) imports without any of them', async () => {
    const code = `const node = await import('${src('node.js')}'); console.log(typeof node.GameServer, typeof node.GameClient);`;
    assert.match(await run(browserPackages, code), /^function function$/m);
  });

  it('a UDP-only server starts without any of them', async () => {
    assert.match(await run(browserPackages, start("{ port: 0, transports: ['udp'] }")), /^served udp$/m);
  });

  it('a listed transport whose package is missing fails at start, naming what to install', async () => {
    const ws = await run(['ws'], start("{ port: 0, transports: ['udp', 'websocket'] }"));
    assert.match(ws, /^refused: ghostwire\/websocket needs the "ws" package: npm install ws@8$/m);
    const rtc = await run(['hono'], start("{ port: 0, transports: ['webrtc'] }"));
    assert.match(rtc, /^refused: ghostwire\/webrtc needs the "hono" package: npm install hono@4$/m);
  });
});

const fleet = `
  import '${src('game/udp-opener.js')}';
  import { startLocalFleet } from '${src('services/local-fleet.js')}';
  import { arenaRules, emptyLog } from '${game}';
  const fleet = await startLocalFleet({ games: { arena: arenaRules(emptyLog()) } });
  const [record] = await fleet.directory.listProcesses();
  console.log('served ' + ['udp', 'websocket', 'webrtc'].filter((k) => record.addresses[k] !== undefined).join(','));
  await fleet.close();
`;

describe('a fleet of games and optional packages', () => {
  // ghostwire/services itself needs hono and @hono/node-server: only the transports' own are hidden.
  it('serves what is installed by default, as GameServer does', async () => {
    assert.match(await run(['ws', 'node-datachannel'], fleet), /^served udp$/m);
    assert.match(await run(['ws'], fleet), /^served udp,webrtc$/m);
    assert.match(await run(['node-datachannel'], fleet), /^served udp,websocket$/m);
  });
});
