import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChannelFuzz } from '../../scripts/channel-fuzz-core.js';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { PacketCodec } from '../../src/connection/packets.js';
import { writePacketHeader } from '../../src/packet/header.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('channel fuzz');
const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(50) }));
const factory = new MessageFactory([Chat]);
const channels = [{ kind: 'reliable-ordered' as const }, { kind: 'unreliable-unordered' as const }];

describe(`channel contents under valid encryption (seed ${SEED})`, () => {
  it('random and mutated channel data in authenticated packets is refused and disturbs nothing', () => {
    const session = messageSession({ protocolId: 5n, factory, channels });
    const { server, serverSocket: socket } = session;
    let now = 0;
    const clientSocket = session.network.createTransport('10.0.0.1:1');
    const client = session.client(clientSocket);
    client.connect(session.token(1n), 0);
    const tick = () => {
      now += 1 / 60;
      server.update(now);
      client.update(now);
    };
    for (let i = 0; i < 30; i++) tick();
    assert.ok(client.connected);
    // The client's keys and counters, to forge packets only a real client could send.
    const internals = client.client as unknown as {
      token: { clientToServerKey: Uint8Array };
      sequence: number;
    };
    const endpoint = client.client.endpoint!;
    const codec = new PacketCodec(5n, nobleAead);
    const next = prng(SEED);
    const out = new Uint8Array(1400);
    const reliable = new Uint8Array(1200);
    const index = client.client.clientIndex;
    const got: number[] = [];
    let injected = 0;
    let realPacket: Uint8Array = new Uint8Array(0);
    // A twin connection sending the same stream: its packets are real channel data to mutate.
    const shadow = new MessageConnection({ factory, channels });
    for (let n = 0; n < 300; n++) {
      client.send(0, Chat, { n, text: `message ${n}` });
      if (n % 10 === 0) client.send(1, Chat, { n, text: 'unreliable' });
      for (let k = 0; k < 20; k++) {
        // A valid reliable header with a fresh packet sequence, then bad channel data.
        const h = writePacketHeader(reliable, 0, (endpoint.nextSequence + k) & 0xffff, 0, 0);
        let body: Uint8Array;
        if (k % 2 === 0 || realPacket.length === 0) body = randomBytes(next, 1 + Math.floor(next() * 400));
        else {
          body = realPacket.slice();
          body[Math.floor(next() * body.length)] ^= 1 << Math.floor(next() * 8);
          if (next() < 0.5) body = body.subarray(0, Math.max(1, body.length - 1 - Math.floor(next() * 4)));
        }
        reliable.set(body, h);
        const length = codec.writePayload(
          out,
          internals.sequence++,
          internals.token.clientToServerKey,
          reliable,
          0,
          h + body.length,
        );
        clientSocket.send(socket.localAddress, out.subarray(0, length));
        injected++;
      }
      // The real client skips the forged sequences (to the server, as if those packets were lost):
      // were it to reuse one, an accepted forgery would have been acked in its place.
      const packets = endpoint as unknown as { sequence: number };
      packets.sequence = (packets.sequence + 20) & 0xffff;
      tick();
      for (let m = server.receive(index, 0); m !== null; m = server.receive(index, 0))
        got.push((m.value as { n: number }).n);
      // Keep a recent real channel packet of this client to mutate.
      shadow.send(0, Chat, { n, text: `message ${n}` });
      const written = shadow.writePacket(now);
      realPacket = Uint8Array.from(written.data);
      shadow.acked(written.record); // so each of its packets carries just the newest message
    }
    for (let i = 0; i < 120; i++) {
      tick();
      for (let m = server.receive(index, 0); m !== null; m = server.receive(index, 0))
        got.push((m.value as { n: number }).n);
    }
    const rejected = server.stats(index).messages;
    assert.ok(client.connected && server.server.connectedClients === 1, 'the connection stays up');
    // Whoever holds the client's keys is the client: a mutated real packet that still parses is a
    // legitimate message, so its value may replace the real one with that id. What must hold is the
    // stream's shape: one message per id, in id order, none lost, and no more changes than forged
    // packets were accepted (each carries one message).
    const accepted = injected - rejected.packetsRejected;
    // A forgery may also carry an id past the real stream's end, which is then delivered after it.
    assert.ok(got.length >= 300, `${got.length} delivered: none of the real stream's ids lost`);
    const replaced = got.slice(0, 300).filter((value, i) => value !== i).length;
    const extra = got.length - 300;
    assert.ok(
      replaced + extra <= accepted,
      `${replaced} values replaced and ${extra} added by ${accepted} accepted forgeries`,
    );
    // Random bodies (half the injections) nearly never parse.
    assert.ok(accepted < injected * 0.5, `${rejected.packetsRejected} of ${injected} refused`);
  });
});

describe(`channel fuzz, short run (seed ${SEED}; npm run fuzz -- --target channels for the long one)`, () => {
  it('hostile channel data (ids and sequences at 0, 2^16, 2^31, 2^32-1 too) never throws, nor do the victim steps after it; refused with a reason, the real stream intact', () => {
    const report = runChannelFuzz({ seed: SEED, inputs: 40_000 });
    assert.equal(report.crash, null, report.crash?.error);
    assert.equal(report.iterations, 40_000);
    assert.equal(report.semanticFailures, 0, JSON.stringify([...report.failures.values()]));
    const [victim, receiver, blockVictim] = report.readers;
    assert.ok(victim.rejected > 0 && victim.reasons.size > 0, 'hostile inputs refused, with reasons');
    // Conflicting block sizes and ids refused (their bound on allocation is a semantic check).
    assert.ok(
      blockVictim.rejected > 0 && blockVictim.accepted > 0,
      'block conflicts refused, the rest taken',
    );
    assert.ok(
      [...blockVictim.reasons.keys()].some((r) => /declared N bytes; its first fragment said N/.test(r)),
    );
    assert.ok(receiver.accepted > 1000 && receiver.rejected === 0, 'every real packet accepted');
  });
});
