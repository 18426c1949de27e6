import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { isIPv6, parseHost } from '../../src/transport/address.js';
import {
  type Address,
  formatAddress,
  isAddress,
  MemoryNetwork,
  parseAddress,
  toAddress,
} from '../../src/transport/index.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('transport tests');

describe('addresses', () => {
  it('formats and parses IPv4 and IPv6 round trip', () => {
    for (const [host, port, text] of [
      ['127.0.0.1', 40000, '127.0.0.1:40000'],
      ['0.0.0.0', 0, '0.0.0.0:0'],
      ['255.255.255.255', 65535, '255.255.255.255:65535'],
      ['::1', 40000, '[::1]:40000'],
      ['::', 1, '[::]:1'],
      ['2001:db8::1', 443, '[2001:db8::1]:443'],
      ['fe80::1%eth0', 9000, '[fe80::1%eth0]:9000'],
      ['::ffff:127.0.0.1', 7, '[::ffff:127.0.0.1]:7'],
    ] as const) {
      const address = formatAddress(host, port);
      assert.equal(address, text);
      const family = host.includes(':') ? 6 : 4;
      assert.deepEqual(parseAddress(address), { host, port, family });
      assert.equal(toAddress(text), text);
      assert.equal(isAddress(text), true);
      assert.equal(isIPv6(address), family === 6);
    }
  });

  it('normalises IPv6 to the RFC 5952 form, so equal addresses are equal strings', () => {
    for (const [input, canonical] of [
      ['[0:0:0:0:0:0:0:1]:80', '[::1]:80'],
      ['[::0001]:80', '[::1]:80'],
      ['[2001:DB8:0:0:0:0:0:1]:80', '[2001:db8::1]:80'],
      ['[2001:0db8:0000:0000:0001:0000:0000:0001]:80', '[2001:db8::1:0:0:1]:80'], // first longest run
      ['[2001:db8:0:0:1:0:0:0]:80', '[2001:db8:0:0:1::]:80'], // the longer run wins
      ['[2001:db8:0:1:1:1:1:1]:80', '[2001:db8:0:1:1:1:1:1]:80'], // a single zero stays
      ['[0:0:0:0:0:0:0:0]:80', '[::]:80'],
      ['[1:0:0:0:0:0:0:0]:80', '[1::]:80'],
      ['[1:2:3:4:5:6:7::]:80', '[1:2:3:4:5:6:7:0]:80'], // "::" for one group is accepted on input
      ['[::ffff:7f00:1]:80', '[::ffff:127.0.0.1]:80'],
      ['[::FFFF:127.0.0.1]:80', '[::ffff:127.0.0.1]:80'],
      ['[::1.2.3.4]:80', '[::102:304]:80'],
      ['[64:ff9b::192.0.2.33]:80', '[64:ff9b::c000:221]:80'],
    ]) {
      assert.equal(toAddress(input), canonical, input);
      assert.equal(isAddress(input), input === canonical, input);
      assert.equal(toAddress(canonical), canonical);
    }
    assert.equal(formatAddress('0:0::1', 5), '[::1]:5');
  });

  it('rejects garbage, names, bad ports and malformed hosts', () => {
    for (const text of [
      '',
      '127.0.0.1',
      '127.0.0.1:',
      ':80',
      '127.0.0.1:65536',
      '127.0.0.1:-1',
      '127.0.0.1:+1',
      '127.0.0.1:01',
      '127.0.0.1:1e3',
      '127.0.0.1:80 ',
      ' 127.0.0.1:80',
      '127.0.0.1:8 0',
      '256.0.0.1:80',
      '01.2.3.4:80',
      '1.2.3:80',
      '1.2.3.4.5:80',
      '1..3.4:80',
      'localhost:80',
      'example.com:80',
      '::1:80',
      '[::1]',
      '[::1]80',
      '[::1]:',
      '[::1]:99999',
      '[1.2.3.4]:80',
      '[[::1]]:80',
      '[::1%]:80',
      '[::1%a:b]:80',
      '[:::1]:80',
      '[1::2::3]:80',
      '[12345::]:80',
      '[1:2:3:4:5:6:7:8:9]:80',
      '[1:2:3:4:5:6:7]:80',
      '[1:2:3:4:5:6:7:8::]:80',
      '[::ffff:1.2.3.256]:80',
      '[1.2.3.4::]:80',
      '[::g]:80',
      `[${'1:'.repeat(100)}]:80`,
    ]) {
      assert.equal(parseAddress(text), null, text);
      assert.equal(isAddress(text), false, text);
      assert.throws(() => toAddress(text), RangeError, text);
    }
    assert.equal(parseAddress(undefined as unknown as string), null);
    assert.equal(parseAddress(42 as unknown as string), null);
    assert.throws(() => formatAddress('localhost', 80), /not an IPv4 or IPv6 address/);
    assert.throws(() => formatAddress('127.0.0.1', 65536), /port must be an integer in \[0, 65535\]/);
    assert.throws(() => formatAddress('127.0.0.1', 1.5), RangeError);
  });

  it('agrees with node:net on which hosts are IP addresses (seeded mutations)', () => {
    const next = prng(SEED);
    const seeds = [
      '127.0.0.1',
      '10.0.255.1',
      '::1',
      '2001:db8::ff00:42:8329',
      '::ffff:1.2.3.4',
      '1:2:3:4:5:6:7:8',
    ];
    const alphabet = '0123456789abcdefABCDEF:.';
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = seeds[randomInt(next, seeds.length)];
      for (let m = 1 + randomInt(next, 3); m > 0; m--) {
        const at = randomInt(next, text.length + 1);
        const c = alphabet[randomInt(next, alphabet.length)];
        const op = randomInt(next, 3);
        text =
          op === 0
            ? text.slice(0, at) + c + text.slice(at)
            : op === 1
              ? text.slice(0, at) + text.slice(at + 1)
              : text.slice(0, at) + c + text.slice(at + 1);
      }
      const ours = parseHost(text);
      assert.equal(ours !== null, isIP(text) !== 0, `seed ${SEED}: ${JSON.stringify(text)}`);
      if (ours !== null) {
        accepted++;
        assert.equal(ours.family, isIP(text));
        // Canonical is a fixed point, and (outside IPv4-mapped) the WHATWG URL serialiser agrees.
        assert.equal(parseHost(ours.host)?.host, ours.host);
        if (ours.family === 6 && !ours.host.includes('.')) {
          assert.equal(new URL(`http://[${text}]/`).hostname, `[${ours.host}]`, text);
        }
      }
    }
    assert.ok(accepted > 1000, `only ${accepted} mutations were addresses`);
  });

  it('random IPv6 spellings of one address give one string (seeded)', () => {
    const next = prng(SEED ^ 0x1234);
    for (let i = 0; i < 2000; i++) {
      const groups = Array.from({ length: 8 }, () => (next() < 0.5 ? 0 : randomInt(next, 0x10000)));
      const spell = () =>
        groups
          .map((g) => {
            const hex = g.toString(16).padStart(1 + randomInt(next, 4), '0');
            return next() < 0.5 ? hex.toUpperCase() : hex;
          })
          .join(':');
      const reference = new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname;
      const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
      const a = toAddress(`[${spell()}]:1`);
      assert.equal(toAddress(`[${spell()}]:1`), a);
      if (!mapped) assert.equal(a, `${reference}:1`);
    }
  });
});

describe('MemoryNetwork / MemoryTransport', () => {
  const bytes = (...values: number[]) => Uint8Array.from(values);

  function collect(transport: { receive: (h: (f: Address, d: Uint8Array) => void, max?: number) => number }) {
    const got: { from: Address; data: number[] }[] = [];
    const n = transport.receive((from, data) => got.push({ from, data: [...data] }));
    assert.equal(n, got.length);
    return got;
  }

  it('delivers a copy, from the sender’s address, to the addressed transport only', () => {
    const network = new MemoryNetwork();
    const a = network.createTransport('127.0.0.1:1000');
    const b = network.createTransport('[::1]:2000');
    const c = network.createTransport();
    const data = bytes(1, 2, 3);
    a.send(b.localAddress, data);
    data[0] = 99; // the caller may reuse its buffer at once
    assert.deepEqual(collect(b), [{ from: '127.0.0.1:1000', data: [1, 2, 3] }]);
    assert.deepEqual(collect(a), []);
    assert.deepEqual(collect(c), []);
    b.send(a.localAddress, new Uint8Array(0));
    assert.deepEqual(collect(a), [{ from: '[::1]:2000', data: [] }]);
    assert.equal(a.stats().sent, 1);
    assert.equal(a.stats().bytesSent, 3);
    assert.equal(b.stats().received, 1);
    assert.equal(b.stats().bytesReceived, 3);
  });

  it('keeps send order across senders, deterministically', () => {
    const network = new MemoryNetwork();
    const [a, b, sink] = [network.createTransport(), network.createTransport(), network.createTransport()];
    const next = prng(SEED);
    const expected: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const from = next() < 0.5 ? a : b;
      from.send(sink.localAddress, bytes(i & 0xff, i >> 8));
      expected.push(`${from.localAddress}/${i}`);
    }
    const got: string[] = [];
    while (sink.receive((from, d) => got.push(`${from}/${d[0] | (d[1] << 8)}`), 100) > 0);
    assert.deepEqual(got, expected);
  });

  it('hands out distinct addresses and refuses one in use', () => {
    const network = new MemoryNetwork();
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add(network.createTransport().localAddress);
    assert.equal(seen.size, 50);
    const port0 = network.createTransport('[::1]:0');
    assert.match(port0.localAddress, /^\[::1\]:\d+$/);
    assert.notEqual(port0.localAddress, '[::1]:0');
    network.createTransport('10.0.0.1:5');
    assert.throws(() => network.createTransport('10.0.0.1:5'), /already in use/);
    assert.throws(() => network.createTransport('nonsense'), /not an address/);
    assert.equal(network.createTransport('[0::1]:7').localAddress, '[::1]:7');
  });

  it('bounds the receive queue and counts drops; receive honours max and its default', () => {
    const network = new MemoryNetwork({ maxQueuedDatagrams: 8, maxDatagramsPerReceive: 3 });
    const a = network.createTransport();
    const b = network.createTransport();
    for (let i = 0; i < 20; i++) a.send(b.localAddress, bytes(i));
    assert.equal(b.stats().queued, 8);
    assert.equal(b.stats().dropped, 12);
    const got: number[] = [];
    assert.equal(
      b.receive((_f, d) => got.push(d[0])),
      3,
    );
    assert.equal(
      b.receive((_f, d) => got.push(d[0]), 4),
      4,
    );
    assert.equal(
      b.receive((_f, d) => got.push(d[0]), 0),
      0,
    );
    assert.equal(
      b.receive((_f, d) => got.push(d[0]), 100),
      1,
    );
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(b.stats().queued, 0);
    // Per-transport override.
    const c = network.createTransport(undefined, { maxQueuedDatagrams: 2 });
    for (let i = 0; i < 5; i++) a.send(c.localAddress, bytes(i));
    assert.equal(c.stats().dropped, 3);
    assert.throws(() => b.receive(() => {}, -1), /max must be an integer/);
    assert.throws(() => b.receive(() => {}, 1.5), RangeError);
    assert.throws(() => b.receive(null as never), /handler must be a function/);
  });

  it('throws on datagrams over the maximum size, naming it', () => {
    const network = new MemoryNetwork();
    const [a, b] = [network.createTransport(), network.createTransport()];
    a.send(b.localAddress, new Uint8Array(65536));
    assert.throws(
      () => a.send(b.localAddress, new Uint8Array(65537)),
      /65537 bytes exceeds maxDatagramSize \(65536/,
    );
    const small = new MemoryNetwork({ maxDatagramSize: 1200 });
    const [c, d] = [small.createTransport(), small.createTransport()];
    c.send(d.localAddress, new Uint8Array(1200));
    assert.throws(() => c.send(d.localAddress, new Uint8Array(1201)), /maxDatagramSize \(1200 bytes\)/);
    assert.throws(() => c.send(d.localAddress, [1, 2] as unknown as Uint8Array), TypeError);
    assert.equal(d.stats().queued, 1);
  });

  it('drops and counts datagrams to unknown addresses; throws on malformed ones', () => {
    const network = new MemoryNetwork();
    const a = network.createTransport();
    a.send(toAddress('127.0.0.1:9'), bytes(1));
    a.send(toAddress('[::1]:9'), bytes(1));
    assert.equal(a.stats().sent, 2);
    assert.equal(a.stats().undeliverable, 2);
    assert.equal(network.stats().unroutable, 2);
    assert.throws(() => a.send('not-an-address' as Address, bytes(1)), /is not an address/);
    assert.throws(() => a.send('[::1]:70000' as Address, bytes(1)), /is not an address/);
    assert.equal(a.stats().sent, 2);
    // A non-canonical spelling that slipped past the type still reaches its transport.
    const b = network.createTransport('[::1]:9');
    a.send('[0:0::1]:9' as Address, bytes(7));
    assert.deepEqual(collect(b), [{ from: a.localAddress, data: [7] }]);
  });

  it('close is idempotent, frees the address, and makes send throw', () => {
    const network = new MemoryNetwork();
    const [a, b] = [network.createTransport(), network.createTransport()];
    a.send(b.localAddress, bytes(1));
    b.close();
    b.close();
    assert.equal(b.closed, true);
    assert.equal(network.size, 1);
    assert.equal(
      b.receive(() => assert.fail('closed transports deliver nothing')),
      0,
    );
    assert.throws(() => b.send(a.localAddress, bytes(1)), /is closed/);
    a.send(b.localAddress, bytes(2));
    assert.equal(a.stats().undeliverable, 1);
    const again = network.createTransport(b.localAddress);
    a.send(again.localAddress, bytes(3));
    assert.deepEqual(collect(again), [{ from: a.localAddress, data: [3] }]);
  });

  it('a handler may send to its own transport, but may not call receive again', () => {
    const network = new MemoryNetwork({ maxQueuedDatagrams: 2 });
    const a = network.createTransport();
    a.send(a.localAddress, bytes(1));
    a.send(a.localAddress, bytes(2));
    const seen: number[] = [];
    a.receive((_f, d) => {
      // The queue is full while the first datagram is read: the loopback send is dropped, and the
      // datagram being read is not overwritten.
      a.send(a.localAddress, bytes(9));
      seen.push(d[0]);
    }, 1);
    assert.deepEqual(seen, [1]);
    assert.equal(a.stats().dropped, 1);
    assert.throws(() => a.receive(() => a.receive(() => {})), /inside its own handler/);
  });

  it('holds storage for the most datagrams queued at once, not for its capacity', () => {
    const network = new MemoryNetwork({ maxQueuedDatagrams: 1024 });
    const [a, b] = [network.createTransport(), network.createTransport()];
    let received = 0;
    for (let tick = 0; tick < 2000; tick++) {
      for (let i = 0; i < 3; i++) a.send(b.localAddress, new Uint8Array(100));
      received += b.receive(() => {});
    }
    assert.equal(received, 6000);
    // Three slots of 128 bytes: a ring turning with the traffic would have made all 1024.
    assert.equal(b.queueStorageBytes, 3 * 128);
  });

  it('gives back the storage of a large datagram after a long run of small ones', () => {
    const network = new MemoryNetwork();
    const [a, b] = [network.createTransport(), network.createTransport()];
    a.send(b.localAddress, new Uint8Array(1078)); // a connection request
    b.receive(() => {});
    assert.equal(b.queueStorageBytes, 1280);
    for (let i = 0; i < 63; i++) {
      a.send(b.localAddress, new Uint8Array(100));
      b.receive(() => {});
    }
    assert.equal(b.queueStorageBytes, 1280, 'kept through 63 small datagrams');
    a.send(b.localAddress, new Uint8Array(100));
    let seen = 0;
    b.receive((_from, data) => (seen = data.length));
    assert.equal(seen, 100);
    assert.equal(b.queueStorageBytes, 128, 'shrunk to fit at the 64th');
  });

  it('reuses its pooled queue storage over a long run', () => {
    const network = new MemoryNetwork({ maxQueuedDatagrams: 64 });
    const [a, b] = [network.createTransport(), network.createTransport()];
    const next = prng(SEED);
    const payload = new Uint8Array(1200);
    let checksum = 0;
    let expected = 0;
    const run = (count: number) => {
      for (let i = 0; i < count; i++) {
        const length = 1 + randomInt(next, 1200);
        payload[length - 1] = i & 0xff;
        expected += i & 0xff;
        a.send(b.localAddress, payload.subarray(0, length));
        if (i % 16 === 15) b.receive((_f, d) => (checksum += d[d.length - 1]));
      }
      b.receive((_f, d) => (checksum += d[d.length - 1]));
    };
    run(5_000);
    const warm = b.queueStorageBytes;
    assert.ok(warm <= 64 * 2048, `storage ${warm}`);
    run(50_000);
    assert.equal(b.queueStorageBytes, warm);
    assert.equal(checksum, expected);
    assert.equal(b.stats().dropped, 0);
  });
});
