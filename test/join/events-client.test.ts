/**
 * EventsClient against a scripted fetch (no server): events parsed from the stream, a friend's
 * older presence dropped, garbage and an endless line refused, a silent stream opened again, a
 * refused session given up, stop() ending everything.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BackendClient, BackendError, type FetchLike } from '../../src/join/backend-client.js';
import { EventsClient } from '../../src/join/gamer/events-client.js';
import type { GamerEvent } from '../../src/join/gamer/social-types.js';

/** Each call answers the next script entry: a status, or the chunks of a 200 stream (then silent or ended). */
type Script = { status: number } | { chunks: string[]; end?: boolean };

function scripted(scripts: Script[]): { fetch: FetchLike; calls: RequestInit[] } {
  const calls: RequestInit[] = [];
  const fetch: FetchLike = async (_url, init) => {
    calls.push(init);
    const script = scripts.shift() ?? { chunks: [] };
    if ('status' in script)
      return new Response(JSON.stringify({ error: `refused ${script.status}` }), { status: script.status });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of script.chunks) controller.enqueue(encoder.encode(chunk));
        if (script.end === true) controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return { fetch, calls };
}

const presence = (accountId: string, state: string, seq: number) =>
  `data: ${JSON.stringify({ kind: 'presence', accountId, state, roomId: null, seq, at: seq })}\n\n`;

async function until(test: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('parses events across chunks, keeps presence moving forward, and skips garbage', async () => {
  const { fetch, calls } = scripted([
    {
      chunks: [
        'retry: 2000\n: open\n\n',
        presence('ann', 'online', 10).slice(0, 20),
        presence('ann', 'online', 10).slice(20),
        'data: not json\n\n',
        'data: {"no":"kind"}\n\n',
        presence('ann', 'away', 12),
        presence('ann', 'online', 11), // older: a repeat from another backend
        ': heartbeat\n\n',
        `data: ${JSON.stringify({ kind: 'friend', accountId: 'bob', state: 'received', at: 1 })}\n\n`,
      ],
    },
  ]);
  const backend = new BackendClient({ url: 'http://backend', fetch, session: 'token' });
  const got: GamerEvent[] = [];
  const stop = new EventsClient(backend).subscribe((e) => got.push(e));
  await until(() => got.length === 3);
  stop();
  assert.deepEqual(
    got.map((e) =>
      e.kind === 'presence'
        ? `${e.accountId}:${e.state}:${e.seq}`
        : `${e.kind}:${e.kind === 'friend' ? e.accountId : e.id}`,
    ),
    ['ann:online:10', 'ann:away:12', 'friend:bob'],
  );
  assert.deepEqual(calls[0].headers, { Authorization: 'Bearer token', Accept: 'text/event-stream' });
});

it('opens again after silence, a refusal, an end, or an endless line, and gives up on 401', async () => {
  const { fetch, calls } = scripted([
    { chunks: [': open\n\n'] }, // then silent: dropped after idleTimeoutMs
    { status: 503 },
    { chunks: [presence('ann', 'online', 1)], end: true },
    { chunks: [`data: ${'x'.repeat(70 * 1024)}`] }, // no end of line in 70 KiB
    { status: 401 },
  ]);
  const backend = new BackendClient({ url: 'http://backend', fetch, session: 'token' });
  const errors: [string, number | null][] = [];
  let opened = 0;
  const stop = new EventsClient(backend).subscribe(() => {}, {
    backoffMs: 10,
    maxBackoffMs: 20,
    idleTimeoutMs: 80,
    onOpen: () => opened++,
    onError: (error, retryInMs) =>
      errors.push([
        error instanceof BackendError ? String(error.status) : String((error as Error).message),
        retryInMs,
      ]),
  });
  await until(() => errors.some(([, retry]) => retry === null));
  stop();
  assert.equal(calls.length, 5);
  assert.equal(opened, 3);
  assert.match(errors[0][0], /silent for 80 ms/);
  assert.equal(errors[1][0], '503');
  assert.match(errors[2][0], /ended/);
  assert.match(errors[3][0], /64 KiB/);
  assert.deepEqual(errors[4], ['401', null]);
  for (const [, retry] of errors.slice(0, 4)) assert.ok(retry !== null && retry > 0 && retry <= 25);
});

it('stop() ends a silent stream and opens nothing more', async () => {
  const { fetch, calls } = scripted([{ chunks: [': open\n\n'] }]);
  const backend = new BackendClient({ url: 'http://backend', fetch, session: 'token' });
  let errors = 0;
  const stop = new EventsClient(backend).subscribe(() => {}, { idleTimeoutMs: 50, onError: () => errors++ });
  await until(() => calls.length === 1);
  stop();
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(calls.length, 1);
  assert.equal(errors, 0);
  assert.throws(() => new EventsClient(backend).subscribe(() => {}, { idleTimeoutMs: 0 }), /idleTimeoutMs/);
  assert.throws(() => new EventsClient(backend).subscribe(5 as never), /listener/);
});
