import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { type Address, parseAddress, toAddress } from '../../src/transport/index.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('udp transport tests');

/** True when this machine can bind a UDP socket on ::1. */
async function hasIPv6Loopback(): Promise<boolean> {
  const socket = createSocket({ type: 'udp6', ipv6Only: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '::1', () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    try {
      socket.close();
    } catch {
      // never bound
    }
  }
}
const ipv6 = await hasIPv6Loopback();

const open: UdpTransport[] = [];
async function openTransport(options: Parameters<typeof UdpTransport.open>[0]): Promise<UdpTransport> {
  const transport = await UdpTransport.open(options);
  open.push(transport);
  return transport;
}
after(() => {
  for (const t of open) t.close();
});

/** Waits (polling the event loop) until `condition` holds, failing after `ms`. */
async function until(condition: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Sends datagrams of every length 1..1200 each way, in batches, and checks every byte. */
async function exchange(host: string): Promise<void> {
  const a = await openTransport({ address: `${host}:0`, receiveBufferSize: 1 << 20 });
  const b = await openTransport({ address: `${host}:0`, receiveBufferSize: 1 << 20 });
  const family = host.includes(':') ? 6 : 4;
  for (const t of [a, b]) {
    assert.match(t.localAddress, family === 6 ? /^\[::1\]:\d+$/ : /^127\.0\.0\.1:\d+$/);
    assert.notEqual(parseAddress(t.localAddress)?.port, 0, 'the bound port is reported');
    assert.equal(t.family, family);
  }
  const next = prng(SEED);
  const buffer = new Uint8Array(1200); // one buffer, reused after every send
  for (const [from, to] of [
    [a, b],
    [b, a],
  ]) {
    const expected = new Map<number, number[]>();
    let received = 0;
    for (let length = 1; length <= 1200; length += 100) {
      const batch = Math.min(100, 1201 - length);
      for (let k = 0; k < batch; k++) {
        const n = length + k;
        for (let i = 0; i < n; i++) buffer[i] = randomInt(next, 256);
        buffer[0] = n & 0xff;
        expected.set(n, [...buffer.subarray(0, n)]);
        from.send(to.localAddress, buffer.subarray(0, n));
        buffer.fill(0);
      }
      await until(() => to.stats().queued === batch, `${batch} datagrams at ${to.localAddress}`);
      to.receive((sender: Address, data) => {
        assert.equal(sender, from.localAddress);
        assert.deepEqual([...data], expected.get(data.length), `datagram of ${data.length} bytes`);
        expected.delete(data.length);
        received++;
      }, batch);
    }
    assert.equal(received, 1200);
    assert.equal(expected.size, 0);
    assert.equal(from.stats().sent, 1200);
    assert.equal(to.stats().dropped, 0);
  }
  assert.equal(a.stats().bytesSent, (1200 * 1201) / 2);
  assert.equal(b.stats().bytesReceived, (1200 * 1201) / 2);
  await until(() => a.pending === 0 && b.pending === 0, 'sends to complete');
  assert.equal(a.stats().undeliverable + b.stats().undeliverable, 0);
}

describe('UdpTransport', () => {
  it('exchanges datagrams of 1..1200 bytes over 127.0.0.1', () => exchange('127.0.0.1'));

  it(
    'exchanges datagrams of 1..1200 bytes over ::1',
    { skip: ipv6 ? false : 'this machine cannot bind a UDP socket on ::1' },
    () => exchange('[::1]'),
  );

  it('receive delivers at most max (default: maxDatagramsPerReceive); the queue is bounded', async () => {
    const a = await openTransport({ address: '127.0.0.1:0' });
    const b = await openTransport({
      address: '127.0.0.1:0',
      maxQueuedDatagrams: 8,
      maxDatagramsPerReceive: 3,
    });
    for (let i = 0; i < 20; i++) a.send(b.localAddress, Uint8Array.of(i));
    await until(() => b.stats().queued + b.stats().dropped === 20, 'all 20 datagrams to arrive');
    assert.equal(b.stats().queued, 8);
    assert.equal(b.stats().dropped, 12);
    const got: number[] = [];
    assert.equal(
      b.receive((_f, d) => got.push(d[0])),
      3,
    );
    assert.equal(
      b.receive((_f, d) => got.push(d[0]), 2),
      2,
    );
    assert.equal(
      b.receive((_f, d) => got.push(d[0]), 100),
      3,
    );
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(
      b.receive(() => {}),
      0,
    );
    assert.equal(b.stats().received, 8);
  });

  it('close is idempotent; a closed transport throws on send and receives nothing', async () => {
    const a = await openTransport({ address: '127.0.0.1:0' });
    const b = await openTransport({ address: '127.0.0.1:0' });
    b.send(a.localAddress, Uint8Array.of(1));
    await until(() => a.stats().queued === 1, 'one datagram');
    a.close();
    a.close();
    assert.equal(a.closed, true);
    assert.equal(
      a.receive(() => assert.fail('closed')),
      0,
    );
    assert.throws(() => a.send(b.localAddress, Uint8Array.of(1)), /is closed/);
    b.send(a.localAddress, Uint8Array.of(2)); // to a closed port: no error surfaces
    await new Promise((resolve) => setTimeout(resolve, 20));
    b.close();
  });

  it('throws at the call for malformed, wrong-family and port-0 addresses and oversized datagrams', async () => {
    const a = await openTransport({ address: '127.0.0.1:0', maxDatagramSize: 1200 });
    for (const bad of ['nonsense', '127.0.0.1', '127.0.0.1:99999', 'localhost:80', '::1:80']) {
      assert.throws(() => a.send(bad as Address, Uint8Array.of(1)), /is not an address/, bad);
    }
    assert.throws(() => a.send(toAddress('[::1]:9'), Uint8Array.of(1)), /cannot send to IPv6 address/);
    assert.throws(() => a.send(toAddress('127.0.0.1:0'), Uint8Array.of(1)), /port 0/);
    assert.throws(() => a.send(a.localAddress, new Uint8Array(1201)), /maxDatagramSize \(1200 bytes\)/);
    assert.equal(a.stats().sent, 0);
    await assert.rejects(UdpTransport.open({ address: 'localhost:0' }), /is not an address/);
    await assert.rejects(
      UdpTransport.open({ address: '127.0.0.1:0', maxDatagramSize: 70000 }),
      /maxDatagramSize/,
    );
    // Binding a port in use fails with the socket's error.
    await assert.rejects(UdpTransport.open({ address: a.localAddress }), /EADDRINUSE/);
  });

  it('copies each send, so the caller can reuse its buffer at once, with a bounded pool', async () => {
    const a = await openTransport({ address: '127.0.0.1:0', maxPendingSends: 4 });
    const b = await openTransport({ address: '127.0.0.1:0' });
    const buffer = new Uint8Array(8);
    for (let i = 0; i < 4; i++) {
      buffer.fill(i);
      a.send(b.localAddress, buffer);
    }
    // Completions arrive on a later tick: more sends than maxPendingSends at once are dropped and counted.
    a.send(b.localAddress, buffer);
    a.send(b.localAddress, buffer);
    assert.equal(a.pending, 4);
    assert.equal(a.stats().undeliverable, 2);
    buffer.fill(0xff);
    await until(() => b.stats().queued + b.stats().dropped === 4, 'four datagrams');
    const got: number[][] = [];
    b.receive((_f, d) => got.push([...d]));
    assert.deepEqual(
      got,
      [0, 1, 2, 3].map((i) => new Array(8).fill(i)),
    );
    await until(() => a.pending === 0, 'sends to complete');
    a.send(b.localAddress, buffer);
    await until(() => b.stats().queued === 1, 'a datagram after the pool drained');
    assert.equal(a.stats().sent, 7);
  });

  it('connectToPeer: sends to the peer it is connected to, reconnects for another, hears only its peer', async () => {
    const client = await openTransport({ address: '127.0.0.1:0', connectToPeer: true });
    const first = await openTransport({ address: '127.0.0.1:0' });
    const second = await openTransport({ address: '127.0.0.1:0' });
    const heard = (t: UdpTransport): string[] => {
      const got: string[] = [];
      t.receive((from, data) => got.push(`${from}:${Array.from(data).join(',')}`));
      return got;
    };
    const collect = async (t: UdpTransport, count: number): Promise<string[]> => {
      const got: string[] = [];
      await until(() => {
        got.push(...heard(t));
        return got.length >= count;
      }, `${count} datagrams at ${t.localAddress}`);
      return got;
    };
    client.send(first.localAddress, Uint8Array.of(1));
    client.send(first.localAddress, Uint8Array.of(2));
    assert.deepEqual(await collect(first, 2), [`${client.localAddress}:1`, `${client.localAddress}:2`]);
    first.send(client.localAddress, Uint8Array.of(3));
    assert.deepEqual(await collect(client, 1), [`${first.localAddress}:3`]);
    // Another peer: the socket connects to it (its port may change), and the first one is no longer heard.
    client.send(second.localAddress, Uint8Array.of(4));
    assert.match(client.localAddress, /^127\.0\.0\.1:[1-9]\d*$/);
    assert.deepEqual(await collect(second, 1), [`${client.localAddress}:4`]);
    first.send(client.localAddress, Uint8Array.of(5));
    second.send(client.localAddress, Uint8Array.of(6));
    assert.deepEqual(await collect(client, 1), [`${second.localAddress}:6`]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(heard(client), [], 'the old peer is not heard');
    assert.equal(client.stats().sent, 3);
    await assert.rejects(() => UdpTransport.open({ connectToPeer: 1 as unknown as boolean }), TypeError);
  });
});
