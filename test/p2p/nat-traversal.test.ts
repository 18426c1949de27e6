import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { formatAddress } from '../../src/transport/address.js';
import { type NatKind, NatLab, netnsSkip, PEER_PORT, RENDEZVOUS_HOST } from '../support/netns.js';

/**
 * NAT traversal through real Linux NAT (iptables in network namespaces): five peers of one session
 * behind five routers, each peer its own process. Which pairs get a direct path and which go
 * through the relay follows from the NATs, and each peer reports the path it took to each other.
 */
const NATS: readonly NatKind[] = ['restricted', 'restricted', 'full-cone', 'symmetric', 'symmetric'];
const PROTOCOL = 0x6e61_7474_6573_74n;
const RENDEZVOUS_PORT = 40000;
const script = fileURLToPath(new URL('../support/nat-node.js', import.meta.url));

interface PeerReport {
  self: number;
  seconds: number;
  paths: Record<string, string | null>;
}

function expectedPath(a: NatKind, b: NatKind): 'direct' | 'relay' {
  // A symmetric NAT opens a new port per destination: only a peer open to anyone (full cone) can
  // answer it there; port-restricted and symmetric peers never see each other's new port.
  if (a === 'symmetric' || b === 'symmetric')
    return a === 'full-cone' || b === 'full-cone' ? 'direct' : 'relay';
  return 'direct';
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      onLine(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
  });
}

describe('NAT traversal on real Linux NAT', { skip: netnsSkip(), timeout: 60_000 }, () => {
  const lab = new NatLab();
  const reports = new Map<number, PeerReport>();
  let rendezvousCounters: { relay: { forwarded: number } } | null = null;

  before(async () => {
    try {
      await start();
    } catch (error) {
      await lab.destroy();
      throw error;
    }
  });

  async function start(): Promise<void> {
    lab.createPublic();
    const peers = NATS.map((nat, i) => lab.addPeer(i + 1, nat));
    const key = randomBytes(32);
    const rendezvous = lab.spawnNode(lab.publicNs, script, [
      'rendezvous',
      `${RENDEZVOUS_HOST}:${RENDEZVOUS_PORT}`,
      key.toString('hex'),
      PROTOCOL.toString(16),
    ]);
    const errors: string[] = [];
    const rendezvousClosed = new Promise<void>((resolve) => rendezvous.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      rendezvous.once('exit', (code) => reject(new Error(`rendezvous exited (${code}): ${errors.join('')}`)));
      rendezvous.stderr!.on('data', (d) => errors.push(String(d)));
      lines(rendezvous.stdout!, (line) => {
        if (line === 'ready') resolve();
        else if (line.startsWith('{')) rendezvousCounters = JSON.parse(line).rendezvous;
      });
    });
    const now = Math.floor(Date.now() / 1000);
    const done = peers.map(
      (p, i) =>
        new Promise<void>((resolve, reject) => {
          const token = issuePeerToken({
            protocolId: PROTOCOL,
            privateKey: new Uint8Array(key),
            sessionId: 1n,
            peer: i,
            maxPeers: NATS.length,
            rendezvousAddress: formatAddress(RENDEZVOUS_HOST, RENDEZVOUS_PORT),
            now,
            timeoutSeconds: 10,
          });
          const child = lab.spawnNode(p.ns, script, [
            'peer',
            `${p.host}:${PEER_PORT}`,
            Buffer.from(token).toString('base64'),
          ]);
          const stderr: string[] = [];
          child.stderr!.on('data', (d) => stderr.push(String(d)));
          child.once('exit', (code) => reject(new Error(`peer ${i} exited (${code}): ${stderr.join('')}`)));
          lines(child.stdout!, (line) => {
            const report = JSON.parse(line) as PeerReport;
            reports.set(report.self, report);
            console.log(
              `peer ${i} (${NATS[i]}) done after ${report.seconds.toFixed(2)} s: ${JSON.stringify(report.paths)}`,
            );
            resolve();
          });
        }),
    );
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`peers done: ${[...reports.keys()]}`)), 30_000).unref(),
    );
    await Promise.race([Promise.all(done), timeout]);
    // 'close' (not 'exit': stdio may still be open then, with the counters line in it). A
    // rendezvous that already died has closed or will close now; kill is harmless either way.
    if (rendezvous.exitCode === null && rendezvous.signalCode === null) rendezvous.kill('SIGTERM');
    await rendezvousClosed;
  }

  after(() => lab.destroy());

  const path = (a: number, b: number) => [reports.get(a)?.paths[b], reports.get(b)?.paths[a]];

  it('(a) two port-restricted cone NATs (MASQUERADE): direct', () => {
    assert.deepEqual(path(0, 1), ['direct', 'direct']);
  });

  it('(b) full-cone-like (static SNAT + DNAT) and symmetric (MASQUERADE --random-fully): direct', () => {
    assert.deepEqual(path(2, 3), ['direct', 'direct']);
    assert.deepEqual(path(2, 4), ['direct', 'direct']);
  });

  it('(c) two symmetric NATs: through the relay', () => {
    assert.deepEqual(path(3, 4), ['relay', 'relay']);
    assert.ok(rendezvousCounters !== null && rendezvousCounters.relay.forwarded > 0);
  });

  it('every other pair takes the path its NATs allow, and every peer heard from every other', () => {
    assert.equal(reports.size, NATS.length);
    for (let a = 0; a < NATS.length; a++)
      for (let b = a + 1; b < NATS.length; b++) {
        const want = expectedPath(NATS[a], NATS[b]);
        assert.deepEqual(path(a, b), [want, want], `peers ${a} (${NATS[a]}) and ${b} (${NATS[b]})`);
      }
  });
});
