/**
 * The README's getting-started files run as they are: examples/getting-started/server.ts (a game
 * server and a token backend) and client.ts (fetches a token, connects, chats, moves, leaves), as
 * two processes over real UDP and HTTP on loopback.
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
  it('the server accepts the client, relays its chat and sees it move; the client hears back and leaves', async () => {
    const server = spawn(process.execPath, [fileURLToPath(new URL('server.js', folder))], {
      env: { ...process.env, GAME_PORT: '0', TOKEN_PORT: '0' },
    });
    const serverOut = { text: '' };
    server.stdout.on('data', (chunk) => {
      serverOut.text += chunk;
    });
    try {
      const [, port] = await waitFor(server, /tokens at http:\/\/127\.0\.0\.1:(\d+)\//, serverOut);
      const client = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [fileURLToPath(new URL('client.js', folder))],
          { env: { ...process.env, TOKEN_PORT: port }, timeout: 30_000 },
          (error, stdout) =>
            resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout }),
        );
      });
      assert.equal(client.code, 0, client.stdout);
      assert.match(client.stdout, /^server: welcome, player1$/m);
      assert.match(client.stdout, /^player1: hello!$/m);
      await waitFor(server, /player1 left: client disconnected/, serverOut);
      assert.match(serverOut.text, /^player1 joined in slot 0$/m);
      assert.match(serverOut.text, /^player1: hello!$/m);
      assert.match(serverOut.text, /^player1 is at -?\d+\.\d\d, 0\.00$/m);
    } finally {
      server.kill();
      await once(server, 'exit');
    }
  });
});
