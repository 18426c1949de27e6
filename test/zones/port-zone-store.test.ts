/**
 * PortZoneStore over a MessageChannel, served by an EmbeddedZoneStore: the ZoneStore contract (the
 * store and its peer are two ports on one store, as two zone workers would be), then what the
 * contract does not see: errors crossing with their class, bytes crossing whole, calls that get no
 * answer, and requests written by a hostile thread straight onto the port.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { PortZoneStore, servePortZoneStore } from '../../src/zones/port-zone-store.js';
import type { ZoneStore } from '../../src/zones/zone-store.js';
import { zoneStoreContract } from '../support/zone-store-contract.js';
import { commitOf, worldIdOf } from '../support/zone-store-contract-shared.js';

zoneStoreContract(
  'over a MessagePort',
  async (limits) => {
    let now = 1_700_000_000_000;
    const embedded = new EmbeddedZoneStore({ nowMs: () => now, limits });
    const [store, closeStore] = portTo(embedded);
    const [peer, closePeer] = portTo(embedded);
    return {
      store,
      peer,
      elapse: async (ms) => {
        now += ms;
      },
      close: async () => {
        await closeStore();
        await closePeer();
        await embedded.close();
      },
    };
  },
  { ttlMs: 1000 },
);

/** A PortZoneStore on a fresh channel served by `store`, and how to close both ends. */
function portTo(store: ZoneStore, timeoutMs?: number): [PortZoneStore, () => Promise<void>] {
  const { port1, port2 } = new MessageChannel();
  const serving = servePortZoneStore(store, port1);
  const client = new PortZoneStore(port2, { timeoutMs });
  return [
    client,
    async () => {
      await client.close();
      serving.close();
    },
  ];
}

function embeddedStore(): EmbeddedZoneStore {
  return new EmbeddedZoneStore({ nowMs: () => 1_000_000 });
}

/** What a call rejects with, to compare across the port. */
async function failure(call: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof Error);
    return { name: error.constructor.name, message: error.message };
  }
  assert.fail('the call did not reject');
}

describe('PortZoneStore: what crosses the port', () => {
  it("the store's RangeError and TypeError reach the worker with the same class and message", async () => {
    const store = embeddedStore();
    const [client, close] = portTo(store);
    const a = (await store.acquireLease(0, 'main', 1000))!.epoch;
    const misuses: ((s: ZoneStore) => Promise<unknown>)[] = [
      (s) => s.acquireLease(300, 'p', 1000),
      (s) => s.acquireLease(0, '', 1000),
      (s) => s.renewLease(0, 0, 1000),
      (s) => s.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 0 })),
      (s) => s.commitHandoff({ ...commitOf({ from: 0, fromEpoch: a, to: 1 }), payload: 'x' as never }),
      (s) => s.readInbox(0, a, { from: 'new' }, 0),
      (s) => s.owners([-1]),
    ];
    for (const misuse of misuses) {
      const direct = await failure(misuse(store));
      assert.match(direct.name, /^(RangeError|TypeError)$/);
      assert.deepEqual(await failure(misuse(client)), direct);
    }
    await store.close();
    assert.deepEqual(await failure(client.lease(0)), await failure(store.lease(0)), 'a closed store');
    await close();
  });

  it('payloads and snapshots arrive as Uint8Arrays of the same bytes; the caller keeps its buffer', async () => {
    const store = embeddedStore();
    const [client, close] = portTo(store);
    const a = (await client.acquireLease(0, 'proc-a', 1000))!.epoch;
    const b = (await client.acquireLease(1, 'proc-b', 1000))!.epoch;
    const big = new Uint8Array(1000).map((_, i) => i & 0xff);
    const payload = big.subarray(10, 20);
    assert.equal(await client.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1, payload })), 'ok');
    assert.equal(big.byteLength, 1000, 'the caller buffer was copied, not moved');
    const read = await client.readInbox(1, b, { from: 'new' }, 10);
    assert.ok(read.status === 'ok');
    assert.ok(read.entries[0].payload instanceof Uint8Array);
    assert.deepEqual(read.entries[0].payload, Uint8Array.from(payload));
    const snapshot = big.subarray(500);
    assert.equal(await client.writeSnapshot(1, b, 7, read.entries[0].cursor, snapshot), 'ok');
    const back = await client.readSnapshot(1);
    assert.ok(back?.bytes instanceof Uint8Array);
    assert.deepEqual(back.bytes, Uint8Array.from(snapshot));
    assert.deepEqual((await store.readSnapshot(1))?.bytes, Uint8Array.from(snapshot), 'the store kept them');
    await close();
  });

  it('a call with no answer rejects after its timeout; a later answer for it is ignored', async () => {
    const { port1, port2 } = new MessageChannel();
    const requests: unknown[] = [];
    port1.on('message', (request) => requests.push(request));
    const client = new PortZoneStore(port2, { timeoutMs: 30 });
    await assert.rejects(client.lease(0), /did not answer lease within 30 ms/);
    assert.equal(client.stats().pending, 0);
    const { id } = requests[0] as { id: number };
    port1.postMessage({ kind: 'zone-store', id, ok: true, value: null });
    await until(() => client.stats().late === 1);
    await client.close();
  });

  it('close() and a port closed by the other end reject every waiting call, and every later one', async () => {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', () => {});
    const client = new PortZoneStore(port2);
    const waiting = [client.lease(0), client.owners([1])];
    await client.close();
    for (const call of waiting) await assert.rejects(call, /the port zone store is closed/);
    await assert.rejects(client.lease(1), /closed/);

    const other = new MessageChannel();
    other.port1.on('message', () => {});
    const orphan = new PortZoneStore(other.port2);
    const pending = orphan.lease(0);
    other.port1.close();
    await assert.rejects(pending, /the zone store port closed/);
    await assert.rejects(orphan.readSnapshot(0), /the zone store port closed/);
  });

  it("a Worker used as the port ends the calls when it exits ('exit', as a Worker emits)", async () => {
    const worker = Object.assign(new EventEmitter(), { postMessage: () => {} });
    const client = new PortZoneStore(worker);
    const pending = client.lease(0);
    worker.emit('exit', 1);
    await assert.rejects(pending, /the zone store port closed/);
    await client.close();
  });

  it('arguments that cannot be cloned reject with a TypeError instead of throwing', async () => {
    const [client, close] = portTo(embeddedStore());
    await assert.rejects(client.acquireLease(0, (() => 'p') as never, 1000), TypeError);
    assert.equal(await client.lease(0), null);
    await close();
  });
});

/** A raw port onto a served store: writes requests as a hostile worker would and reads answers. */
function rawPort(store: ZoneStore, maxInFlight?: number) {
  const { port1, port2 } = new MessageChannel();
  const serving = servePortZoneStore(store, port1, { maxInFlight });
  const answers = new Map<
    number,
    { ok: boolean; value?: unknown; error?: { name: string; message: string } }
  >();
  port2.on('message', (answer: { id: number; ok: boolean }) => answers.set(answer.id, answer));
  let nextId = 1;
  return {
    serving,
    port: port2 as MessagePort,
    answers,
    send(method: unknown, args: unknown): number {
      const id = nextId++;
      port2.postMessage({ kind: 'zone-store', id, method, args });
      return id;
    },
    async ask(method: unknown, args: unknown) {
      const id = this.send(method, args);
      await until(() => answers.has(id));
      return answers.get(id)!;
    },
    close() {
      serving.close();
      port2.close();
    },
  };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.ok(done(), 'timed out waiting');
}

describe('servePortZoneStore: hostile requests', () => {
  it('methods that are not ZoneStore calls are refused; close and private methods are never called', async () => {
    const store = embeddedStore();
    const raw = rawPort(store);
    for (const method of [
      'close',
      'checkOpen',
      'inbox',
      'liveLease',
      'constructor',
      '__proto__',
      'toString',
      42,
    ]) {
      const answer = await raw.ask(method, []);
      assert.equal(answer.ok, false, String(method));
      assert.equal(answer.error?.name, 'TypeError');
    }
    assert.equal((await raw.ask('acquireLease', [0, 'proc-a', 1000]))?.ok, true, 'the store is open');
    assert.equal(raw.serving.stats().refused, 8);
    raw.close();
  });

  it('arguments of the wrong types are refused with a TypeError and the store is untouched', async () => {
    const store = embeddedStore();
    const raw = rawPort(store);
    const bad: [string, unknown][] = [
      ['acquireLease', ['0', 'proc-a', 1000]],
      ['acquireLease', [0, 7, 1000]],
      ['acquireLease', [0, 'proc-a', 1000, 'yes']],
      ['acquireLease', { 0: 0, 1: 'proc-a', 2: 1000, length: 3 }],
      ['acquireLease', [0, 'proc-a', 1000, true, 1, 2]],
      ['commitHandoff', [null]],
      ['commitHandoff', [[1, 2, 3]]],
      ['commitHandoff', [{ ...commitOf({ from: 0, fromEpoch: 1, to: 1 }), payload: [1, 2, 3] }]],
      ['commitHandoff', [{ ...commitOf({ from: 0, fromEpoch: 1, to: 1 }), payload: new ArrayBuffer(3) }]],
      ['commitHandoff', [{ ...commitOf({ from: 0, fromEpoch: 1, to: 1 }), hseq: '1' }]],
      ['readInbox', [1, 1, { from: 'pending' }, 10]],
      ['readInbox', [1, 1, 'new', 10]],
      ['writeSnapshot', [0, 1, 1, 0, 'bytes']],
      ['owners', [[1, '2']]],
      ['owners', ['1,2']],
      ['renewLease', []],
    ];
    for (const [method, args] of bad) {
      const answer = await raw.ask(method, args);
      assert.equal(answer.ok, false, `${method} ${JSON.stringify(args)}`);
      assert.equal(answer.error?.name, 'TypeError', `${method}: ${answer.error?.message}`);
    }
    assert.equal(await store.lease(0), null);
    assert.deepEqual(await store.owners([worldIdOf(0, 1)]), [{ zone: 0, hseq: 0 }]);
    assert.equal(raw.serving.stats().refused, bad.length);
    raw.close();
  });

  it('huge counts are refused cheaply with a RangeError', async () => {
    const store = embeddedStore();
    const raw = rawPort(store);
    const many = await raw.ask('owners', [new Array(2_000_000).fill(1)]);
    assert.equal(many.error?.name, 'RangeError');
    assert.match(many.error?.message ?? '', /at most 1024/);
    const epoch = (await store.acquireLease(0, 'proc-a', 1000))!.epoch;
    assert.equal((await raw.ask('readInbox', [0, epoch, { from: 'new' }, 1e9])).error?.name, 'RangeError');
    assert.equal((await raw.ask('acquireLease', [1, 'p'.repeat(100_000), 1000])).error?.name, 'RangeError');
    assert.equal(await store.lease(1), null);
    raw.close();
  });

  it('messages with no usable id are dropped and counted; messages of other adapters are not counted', async () => {
    const raw = rawPort(embeddedStore());
    for (const id of [undefined, -1, 1.5, '3', null, Number.MAX_SAFE_INTEGER + 2]) {
      raw.port.postMessage({ kind: 'zone-store', id, method: 'lease', args: [0] });
    }
    raw.port.postMessage({ kind: 'zone-feed', op: 'pub' });
    raw.port.postMessage('hello');
    raw.port.postMessage(null);
    assert.equal((await raw.ask('lease', [0])).ok, true, 'the port still serves');
    assert.equal(raw.serving.stats().dropped, 6);
    assert.equal(raw.answers.size, 1, 'only the good request was answered');
    raw.close();
  });

  it('a flood beyond the in-flight bound is answered busy; the store sees only the bounded calls', async () => {
    let calls = 0;
    const never = new Promise<never>(() => {});
    const stuck = {
      lease: () => {
        calls += 1;
        return never;
      },
    } as unknown as ZoneStore;
    const raw = rawPort(stuck, 8);
    const ids = Array.from({ length: 50 }, () => raw.send('lease', [0]));
    await until(() => raw.answers.size === 42);
    assert.equal(calls, 8);
    assert.deepEqual(raw.serving.stats(), { answered: 0, refused: 42, busy: 42, dropped: 0, inFlight: 8 });
    for (const id of ids.slice(8)) assert.match(raw.answers.get(id)?.error?.message ?? '', /busy/);
    raw.close();
  });

  it('the in-flight bound frees as the store answers, so a well-behaved worker is never refused', async () => {
    const store = embeddedStore();
    const raw = rawPort(store, 4);
    const client = new PortZoneStore(raw.port);
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => client.lease(i)));
    assert.deepEqual(results, [null, null, null, null]);
    assert.equal(raw.serving.stats().inFlight, 0);
    raw.close();
  });

  it('an answer the store cannot have cloned becomes an error answer, not a hang', async () => {
    const odd = { lease: async () => () => 'not cloneable' } as unknown as ZoneStore;
    const [client, close] = portTo(odd);
    await assert.rejects(client.lease(0), /cannot be sent/);
    await close();
  });
});
