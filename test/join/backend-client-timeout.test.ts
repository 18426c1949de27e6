/**
 * BackendClient against a backend that accepts and never answers: each request gives up after
 * timeoutMs with a clear BackendError, or at once when the caller's signal aborts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';

let server: Server;
let url = '';
let requests = 0;

before(async () => {
  // Reads the request and stalls: no status line, no headers, ever.
  server = createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function timedOut(request: Promise<unknown>, what: string): Promise<void> {
  const error = await request.then(
    () => assert.fail(`${what} answered`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, `${what}: ${String(error)}`);
  assert.equal(error.timedOut, true);
  assert.match(error.message, /timeout: no answer to POST \/\S+ within 150 ms/);
}

describe('BackendClient timeouts', () => {
  it('rejects every request with a timeout error when the backend never answers', async () => {
    const client = new BackendClient({ url, timeoutMs: 150, session: 'a-session' });
    const seen = requests;
    await timedOut(client.auth({ name: 'ada' }), 'auth');
    client.session = 'a-session';
    await timedOut(client.joinOrCreate('arena', { transport: 'udp' }), 'joinOrCreate');
    await timedOut(client.create('arena', { transport: 'udp' }), 'create');
    await timedOut(client.join('r1', { transport: 'udp' }), 'join');
    await timedOut(client.reconnect('s1', { transport: 'udp' }), 'reconnect');
    assert.equal(requests - seen, 5, 'each request reached the server');
  });

  it('rejects with the caller’s reason when its signal aborts first', async () => {
    const client = new BackendClient({ url, timeoutMs: 60_000, session: 'a-session' });
    const abort = new AbortController();
    const pending = client.join('r1', { transport: 'udp', signal: abort.signal });
    setTimeout(() => abort.abort(new Error('player closed the menu')), 50);
    await assert.rejects(pending, /player closed the menu/);
    await assert.rejects(
      client.auth({ name: 'ada' }, { signal: AbortSignal.abort(new Error('already')) }),
      /already/,
    );
  });

  it('combines the signals without AbortSignal.any (older browsers and Node before 20.3)', async () => {
    const any = Object.getOwnPropertyDescriptor(AbortSignal, 'any');
    delete (AbortSignal as { any?: unknown }).any;
    try {
      const client = new BackendClient({ url, timeoutMs: 150, session: 'a-session' });
      const abort = new AbortController();
      const pending = client.create('arena', { transport: 'udp', signal: abort.signal });
      setTimeout(() => abort.abort(new Error('gave up')), 30);
      await assert.rejects(pending, /gave up/);
      await timedOut(client.join('r1', { transport: 'udp', signal: new AbortController().signal }), 'join');
    } finally {
      if (any !== undefined) Object.defineProperty(AbortSignal, 'any', any);
    }
  });

  it('refuses a timeoutMs that is not a finite number > 0', () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      assert.throws(() => new BackendClient({ url, timeoutMs }), RangeError);
  });
});
