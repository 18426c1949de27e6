/**
 * The Directory contract (test/support/directory-contract.ts) run against every implementation:
 * the embedded one on a fake clock; IpcDirectory, two children's worth served by one parent's
 * embedded directory, over in-process links and over a real forked child's channel; and
 * RedisDirectory against a real redis-server with real short TTLs, two directories (two
 * connections) sharing it as two processes of a fleet would.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { IpcDirectory, serveDirectory } from '../../src/services/ipc-directory.js';
import { childEndpoint } from '../../src/services/ipc-endpoint.js';
import { RedisDirectory } from '../../src/services/redis-directory.js';
import { type ContractOptions, directoryContract, type MakeSubject } from '../support/directory-contract.js';
import { directoryMisuseContract } from '../support/directory-contract-misuse.js';
import { ipcLink } from '../support/ipc-link.js';
import { RedisServer, redisSkip } from '../support/redis.js';

/** Every part of the contract for one implementation. */
function contracts(name: string, make: MakeSubject, options: ContractOptions): void {
  directoryContract(name, make, options);
  directoryMisuseContract(name, make, options);
}

contracts(
  'embedded',
  async () => {
    let now = 1_700_000_000_000;
    const directory = new EmbeddedDirectory({ now: () => now });
    return {
      directory,
      peer: directory,
      elapse: async (ms) => {
        now += ms;
      },
      close: () => directory.close(),
    };
  },
  { ttlMs: 1000 },
);

contracts(
  'ipc (in-process links)',
  async () => {
    let now = 1_700_000_000_000;
    const served = new EmbeddedDirectory({ now: () => now });
    const links = [ipcLink(), ipcLink()];
    const stops = links.map((link) => serveDirectory(link.parent, served));
    const [directory, peer] = links.map((link) => new IpcDirectory({ endpoint: link.child }));
    return {
      directory,
      peer,
      elapse: async (ms) => {
        now += ms;
      },
      close: async () => {
        await Promise.all([directory.close(), peer.close()]);
        for (const stop of stops) stop();
        await served.close();
      },
    };
  },
  { ttlMs: 1000 },
);

// A child (test/fixtures/directory-relay.ts) serves back, over its real channel, the IpcDirectory
// it has to the directory served here: calls from this process go through the child's IpcDirectory.
const RELAY = fileURLToPath(new URL('../fixtures/directory-relay.js', import.meta.url));
let relay: ChildProcess | null = null;
after(() => {
  relay?.kill();
});

contracts(
  'ipc (a forked child)',
  async () => {
    if (relay === null) {
      relay = fork(RELAY, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await once(relay, 'message');
    }
    let now = 1_700_000_000_000;
    const served = new EmbeddedDirectory({ now: () => now });
    const stop = serveDirectory(relay, served);
    const endpoint = childEndpoint(relay);
    // Two directories on one channel, as two parts of one child would each make their own.
    const [directory, peer] = [new IpcDirectory({ endpoint }), new IpcDirectory({ endpoint })];
    return {
      directory,
      peer,
      elapse: async (ms) => {
        now += ms;
      },
      close: async () => {
        await Promise.all([directory.close(), peer.close()]);
        stop();
        await served.close();
      },
    };
  },
  { ttlMs: 1000 },
);

const skip = redisSkip();
let server: RedisServer | null = null;
let subjects = 0;
after(async () => {
  await server?.dispose();
});

contracts(
  'redis',
  async () => {
    // Started by the first test that needs it (a missing required server fails these tests only).
    server ??= await RedisServer.start();
    // Each test on its own key prefix: nothing left by another test is seen.
    const options = { url: server.url, keyPrefix: `contract${++subjects}:` };
    const [directory, peer] = await Promise.all([
      RedisDirectory.connect(options),
      RedisDirectory.connect(options),
    ]);
    return {
      directory,
      peer,
      elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      close: async () => {
        await Promise.all([directory.close(), peer.close()]);
      },
    };
  },
  { ttlMs: 400, skip },
);
