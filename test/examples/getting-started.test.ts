/**
 * The getting-started files run as they are: examples/getting-started/server.ts (a GameServer) and
 * client.ts (a GameClient: connects from the server's URL, walks, hears the typed event, leaves),
 * as two processes over real UDP and HTTP on loopback.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const folder = new URL('../../examples/getting-started/', import.meta.url);

/** Resolves with the first stdout match of `pattern` (and everything printed so far). */
function waitFor(child: ChildProcess, pattern: RegExp, output: { text: string }): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${output.text}`)), 20_000);
    const check = () => {
      const match = output.text.match(pattern);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(match);
    };
    child.stdout?.on('data', check);
    check();
  });
}

describe('getting started (examples/getting-started)', () => {
  it('the client joins from the URL, hears its typed event, walks right; the server sees it move and leave', async () => {
    const server = spawn(process.execPath, [fileURLToPath(new URL('server.js', folder))], {
      env: { ...process.env, PORT: '0' },
    });
    const serverOut = { text: '' };
    server.stdout.on('data', (chunk) => {
      serverOut.text += chunk;
    });
    try {
      const [, url] = await waitFor(server, /walkers at (http:\/\/\S+)/, serverOut);
      const client = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [fileURLToPath(new URL('client.js', folder)), url],
          { timeout: 30_000 },
          (error, stdout) =>
            resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout }),
        );
      });
      assert.equal(client.code, 0, client.stdout);
      const [, id] = client.stdout.match(/^I am walker (\d+)$/m) ?? assert.fail(client.stdout);
      // Three seconds of dx = 1 at 1/8 m a tick: its predicted walker is well to the right.
      const places = [...client.stdout.matchAll(/^I am at (-?\d+\.\d\d); 0 others; RTT \d+\.\d ms$/gm)];
      assert.equal(places.length, 3, client.stdout);
      assert.ok(Number(places[2][1]) > Number(places[0][1]) + 3, client.stdout);
      await waitFor(server, /^player 0 left$/m, serverOut);
      assert.match(serverOut.text, new RegExp(`^player 0 joined as walker ${id}$`, 'm'));
      // The server's own view: the walker moved right by the client's inputs, and not up or down.
      const xs = [...serverOut.text.matchAll(/^player 0 is at (\d+\.\d\d), 0\.00$/gm)].map((m) =>
        Number(m[1]),
      );
      assert.ok(xs.length >= 2 && Math.max(...xs) > 3, serverOut.text);
    } finally {
      server.kill();
      await once(server, 'exit');
    }
  });
});
