/**
 * The backend under bad input: every refusal is a 4xx with a reason (schemas, body size, content
 * type, unknown routes and methods, rate limits), and a seeded fuzz of hostile bodies never gets
 * a 5xx.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomBytes, randomInt } from '../../src/random/prng.js';
import { createBackend } from '../../src/services/backend.js';
import { RateLimiter } from '../../src/services/backend-rate-limit.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { backendPerTest, call, FakeRoomProcess, guest } from '../support/backend-fixture.js';
import { testSeed } from '../support/seed.js';

const start = backendPerTest();

async function raw(
  url: string,
  method: string,
  path: string,
  body: BodyInit | undefined,
  headers: Record<string, string>,
) {
  const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let error: unknown;
  try {
    error = (JSON.parse(text) as { error?: unknown }).error;
  } catch {
    error = text;
  }
  return { status: response.status, error, headers: response.headers };
}

describe('refusals with a reason', () => {
  it('summarizes the schema issues of a bad body as a 400 reason', async () => {
    const f = await start();
    const { session } = await guest(f.url);
    const cases: [string, unknown, RegExp][] = [
      ['/auth', {}, /^name: /],
      ['/auth', { name: '' }, /^name: Too small/],
      ['/auth', null, /^body: /],
      ['/auth', [1, 2], /^body: /],
      ['/rooms/join-or-create', { name: 'arena', transport: 'carrier-pigeon' }, /^transport: /],
      ['/rooms/join-or-create', { name: 'a b', transport: 'udp' }, /^name: must be letters/],
      ['/rooms/join-or-create', { name: 'arena', transport: 'udp', options: 'big' }, /^options: /],
      ['/rooms/create', { transport: 'udp' }, /^name: /],
      ['/reconnect', { seatId: 'é', transport: 'udp' }, /^seatId: must be letters, digits/],
      ['/reconnect', { seatId: 'abc:seats', transport: 'udp' }, /^seatId: must be letters, digits/],
      ['/reconnect', { seatId: 'abc', roomId: 'r*', transport: 'udp' }, /^roomId: must be letters, digits/],
      ['/reconnect', { seatId: 'x'.repeat(65), transport: 'udp' }, /^seatId: Too big/],
      ['/matchmake', { pool: 'duel', skill: 'high' }, /^skill: /],
      ['/matchmake', { pool: 'duel', properties: { a: { nested: 1 } } }, /^properties.a: /],
      ['/matchmake', { pool: 'duel', party: ['someone-else'] }, /Unrecognized key.*party/],
    ];
    for (const [path, body, reason] of cases) {
      const answer = await call(f.url, 'POST', path, body, session);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.match(String(answer.body.error), reason, `${path} ${JSON.stringify(body)}`);
    }
    const many = await call(
      f.url,
      'POST',
      '/rooms/join-or-create',
      { options: Object.fromEntries([...Array(40)].map((_, i) => [`k${i}`, i])) },
      session,
    );
    assert.match(String(many.body.error), /options: at most 32 keys/);
    const param = await call(f.url, 'POST', `/rooms/${'r'.repeat(65)}/join`, { transport: 'udp' }, session);
    assert.deepEqual(
      [param.status, param.body.error],
      [400, 'roomId: Too big: expected string to have <=64 characters'],
    );
    // An id reaching directory keys with ':' would name another record (a 500 WRONGTYPE on Redis).
    for (const path of ['/rooms/r1:seats/join', '/rooms/r1%3Aseats/join']) {
      const keyed = await call(f.url, 'POST', path, { transport: 'udp' }, session);
      assert.equal(keyed.status, 400, path);
      assert.match(String(keyed.body.error), /^roomId: must be letters, digits/);
    }
    const ticket = await call(f.url, 'GET', '/matchmake/t:1?transport=udp', undefined, session);
    assert.equal(ticket.status, 400);
    const query = await call(f.url, 'GET', '/matchmake/abc?transport=smoke', undefined, session);
    assert.equal(query.status, 400);
    assert.match(String(query.body.error), /^transport: /);
  });

  it('refuses malformed JSON (400), other content types (415) and oversized bodies (413)', async () => {
    const f = await start({ maxBodyBytes: 1000 });
    const json = { 'Content-Type': 'application/json' };
    assert.deepEqual(await raw(f.url, 'POST', '/auth', '{"name":', json).then((a) => [a.status, a.error]), [
      400,
      'Malformed JSON in request body',
    ]);
    const text = await raw(f.url, 'POST', '/auth', 'name=ada', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    assert.deepEqual([text.status, text.error], [415, 'body must be application/json']);
    const none = await raw(f.url, 'POST', '/auth', undefined, {});
    assert.equal(none.status, 415);
    const big = await raw(f.url, 'POST', '/auth', JSON.stringify({ name: 'x'.repeat(2000) }), json);
    assert.deepEqual([big.status, big.error], [413, 'body over 1000 bytes']);
    // Without a Content-Length the body is counted as it streams in.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(400)));
        controller.close();
      },
    });
    const chunked = await fetch(`${f.url}/auth`, {
      method: 'POST',
      headers: json,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
  });

  it('answers 404 for unknown routes and 405 with Allow for a known one asked wrongly', async () => {
    const f = await start();
    const { session } = await guest(f.url);
    const missing = await raw(f.url, 'GET', '/admin', undefined, {});
    assert.deepEqual([missing.status, missing.error], [404, 'no route GET /admin']);
    const wrong = await raw(f.url, 'GET', '/auth', undefined, {});
    assert.deepEqual(
      [wrong.status, wrong.error, wrong.headers.get('Allow')],
      [405, 'GET not allowed here (POST)', 'POST'],
    );
    const put = await raw(f.url, 'PUT', '/matchmake/abc', '{}', { 'Content-Type': 'application/json' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('Allow'), 'GET, DELETE');
    const joinGet = await call(f.url, 'GET', '/rooms/abc/join', undefined, session);
    assert.equal(joinGet.status, 405);
  });

  it('limits requests per address with a token bucket: 429 with Retry-After', async () => {
    const f = await start({ rateLimit: { burst: 3, perSecond: 1 } });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof raw>> | null = null;
    for (let i = 0; i < 5; i++) {
      last = await raw(f.url, 'GET', '/nowhere', undefined, {});
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [404, 404, 404, 429, 429]);
    assert.equal(last?.headers.get('Retry-After'), '1');
    assert.match(String(last?.error), /too many requests/);
  });
});

describe('createBackend misuse', () => {
  it('throws RangeError at the call for a bad key, protocol id or lifetime', () => {
    const directory = new EmbeddedDirectory();
    const base = { directory, privateKey: new Uint8Array(32), protocolId: 1n, sweepIntervalMs: 0 };
    assert.throws(() => createBackend({ ...base, privateKey: new Uint8Array(31) }), /privateKey must be/);
    assert.throws(() => createBackend({ ...base, protocolId: 1 as unknown as bigint }), /protocolId must be/);
    assert.throws(() => createBackend({ ...base, tokenSeconds: 1.5 }), /tokenSeconds must be an integer/);
    assert.throws(() => createBackend({ ...base, sessionSeconds: Number.NaN }), /sessionSeconds must be > 0/);
    assert.throws(() => createBackend({ ...base, sessionSecret: new Uint8Array(8) }), /at least 16 bytes/);
    assert.throws(() => createBackend({ ...base, rateLimit: { perSecond: -1 } }), /rateLimit.perSecond/);
  });
});

describe('RateLimiter', () => {
  it('refills at its rate, per address', () => {
    const limit = new RateLimiter({ burst: 2, perSecond: 2 });
    assert.deepEqual(
      [0, 0, 0].map(() => limit.take('a', 1000)),
      [0, 0, 1],
    );
    assert.equal(limit.take('b', 1000), 0, 'another address has its own bucket');
    assert.equal(limit.take('a', 1500), 0, 'half a second gives one token back');
    assert.equal(limit.take('a', 1500), 1);
    assert.equal(limit.take('a', 900), 1, 'a clock step back gives nothing');
  });

  it('tracks a bounded number of addresses, dropping refilled and then least recent ones', () => {
    const limit = new RateLimiter({ burst: 5, perSecond: 1, maxAddresses: 100 });
    for (let i = 0; i < 10_000; i++) limit.take(`10.0.${i >> 8}.${i & 255}`, 1000 + i);
    assert.equal(limit.size, 100);
    for (let i = 0; i < 5; i++) limit.take('hot', 20_000);
    assert.equal(limit.take('hot', 20_000), 1, 'an exhausted bucket is kept');
    for (let i = 0; i < 50; i++) limit.take(`new-${i}`, 20_000);
    assert.equal(limit.take('hot', 20_000), 1, 'refilled buckets go first');
    assert.throws(() => new RateLimiter({ burst: 0 }), RangeError);
  });
});

describe('hostile bodies (seeded fuzz)', () => {
  it('never answers 5xx', async () => {
    const seed = testSeed('backend fuzz');
    const next = prng(seed);
    const f = await start({ createTimeoutMs: 100 });
    await FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 50, maxRooms: 100_000 });
    const { session } = await guest(f.url);
    const routes = [
      ['POST', '/auth'],
      ['POST', '/rooms/join-or-create'],
      ['POST', '/rooms/create'],
      ['POST', '/rooms/r1/join'],
      ['POST', '/reconnect'],
      ['POST', '/matchmake'],
      ['GET', '/matchmake/t1?transport=udp'],
      ['DELETE', '/matchmake/t1'],
    ] as const;
    const atoms = () =>
      [
        null,
        true,
        0,
        -1,
        1e308,
        'udp',
        'webrtc',
        'arena',
        '',
        'x'.repeat(70),
        '__proto__',
        'é\u0000',
        [],
        {},
      ][randomInt(next, 14)];
    const value = (depth: number): unknown => {
      const kind = randomInt(next, depth > 3 ? 1 : 4);
      if (kind === 0) return atoms();
      if (kind === 1) return [...Array(randomInt(next, 4))].map(() => value(depth + 1));
      const keys = [
        'name',
        'transport',
        'options',
        'seatId',
        'roomId',
        'pool',
        'skill',
        'properties',
        'party',
        '__proto__',
        'constructor',
      ];
      return Object.fromEntries(
        [...Array(randomInt(next, 5))].map(() => [keys[randomInt(next, keys.length)], value(depth + 1)]),
      );
    };
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const [method, path] = routes[randomInt(next, routes.length)];
      const form = randomInt(next, 6);
      let body: BodyInit | undefined;
      if (form === 0) body = JSON.stringify(value(0));
      else if (form === 1) body = Buffer.from(randomBytes(next, randomInt(next, 64)));
      else if (form === 2) body = `{"name":"${'['.repeat(randomInt(next, 3000))}`;
      else if (form === 3) body = '['.repeat(5000) + ']'.repeat(5000);
      else {
        // A valid body with one field replaced or added: reaches the handlers, not only the schemas.
        const valid: Record<string, unknown> = {
          name: 'arena',
          transport: 'udp',
          seatId: 's1',
          roomId: 'r1',
          pool: 'duel',
          skill: 10,
          options: { map: 'dust' },
        };
        const keys = Object.keys(valid);
        if (form === 5) valid[keys[randomInt(next, keys.length)]] = value(1);
        body = JSON.stringify(valid);
      }
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (randomInt(next, 4) > 0) headers.Authorization = `Bearer ${session}`;
      const answer = await raw(f.url, method, path, method === 'GET' ? undefined : body, headers);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      assert.ok(
        answer.status < 500,
        `seed ${seed} case ${i}: ${method} ${path} answered ${answer.status} ${answer.error}`,
      );
      assert.equal(typeof answer.error === 'string' || answer.status === 200, true);
    }
    assert.ok((statuses.get(400) ?? 0) > 50, `mostly refused: ${JSON.stringify([...statuses])}`);
  });
});
