/**
 * The public API of MessageServer / MessageClient (issues 9 and 15): index arguments checked at
 * the call, broadcast, stats() over a connection's whole life, and the report of what a
 * disconnect discarded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConnectionStats,
  defineMessage,
  MessageClient,
  MessageConnection,
  MessageFactory,
  type MessageServer,
  type UndeliveredReport,
} from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { ClientState } from '../../src/connection/client.js';
import { t } from '../../src/schema/schema.js';
import { messageSession } from '../support/message-session.js';

const Chat = defineMessage('chat', t.object({ text: t.string(200) }));
const factory = new MessageFactory([Chat]);
const RELIABLE = 0;
const UNRELIABLE = 1;
const channels = [
  { kind: 'reliable-ordered' as const, sendQueueSize: 8 },
  { kind: 'unreliable-unordered' as const },
];

/** A server and `count` connected clients on one simulated clock; the server's disconnects are kept. */
function session(count: number, protocolId: bigint) {
  const disconnects: {
    index: number;
    reason: string;
    undelivered: UndeliveredReport;
    stats: ConnectionStats;
  }[] = [];
  const ref: { server?: MessageServer<typeof Chat> } = {};
  const s = messageSession({
    protocolId,
    factory,
    channels,
    maxClients: 8,
    onDisconnect: (index, _clientId, reason, undelivered) =>
      disconnects.push({ index, reason, undelivered, stats: ref.server!.stats(index) }),
  });
  ref.server = s.server;
  const clientEnds: { undelivered: UndeliveredReport; state: number; stats: ConnectionStats }[] = [];
  const clients = Array.from({ length: count }, (_, i) => {
    const client = s.client(s.network.createTransport(`10.0.0.${i + 1}:1`), {
      onDisconnect: (undelivered, state) => clientEnds.push({ undelivered, state, stats: client.stats() }),
    });
    client.connect(s.token(BigInt(i + 1)), s.clock.now);
    return client;
  });
  const tick = () => s.tick(clients);
  for (let i = 0; i < 60 && !clients.every((c) => c.connected); i++) tick();
  assert.ok(clients.every((c) => c.connected));
  const texts = (client: (typeof clients)[number]) => {
    const out: string[] = [];
    for (let m = client.receive(RELIABLE); m !== null; m = client.receive(RELIABLE))
      if (m.is(Chat)) out.push(m.value.text);
    return out;
  };
  return { ...s, clients, tick, disconnects, clientEnds, texts };
}

describe('index arguments are checked at the call (issue 9)', () => {
  it('a channel index given as a string, a fraction, negative or past the end throws naming the argument', () => {
    const c = new MessageConnection({ factory, channels });
    const asString = '0' as unknown as number;
    assert.throws(() => c.send(asString, Chat, { text: 'x' }), {
      name: 'TypeError',
      message: 'send: channel must be a number, got the string "0"',
    });
    assert.throws(() => c.receive(asString), TypeError);
    assert.throws(() => c.sendBlock(asString, new Uint8Array(1)), TypeError);
    assert.throws(() => c.blockProgress(asString), TypeError);
    for (const bad of [1.5, -1, 2, Number.NaN, 2 ** 32]) {
      assert.throws(() => c.receive(bad), {
        name: 'RangeError',
        message: `receive: channel must be an integer in [0, 1], got ${bad}`,
      });
    }
    assert.throws(() => c.sendBlock(0, [1, 2] as unknown as Uint8Array), /data must be a Uint8Array/);
    assert.deepEqual(c.queueDepths(), [
      { send: 0, receive: 0 },
      { send: 0, receive: 0 },
    ]);
  });

  it('MessageServer checks client indexes and channels; MessageClient checks channels even when not connected', () => {
    const s = session(1, 901n);
    const index = s.clients[0].client.clientIndex;
    const asString = (v: number) => String(v) as unknown as number;
    assert.throws(() => s.server.send(asString(index), RELIABLE, Chat, { text: 'x' }), {
      name: 'TypeError',
      message: `MessageServer.send: clientIndex must be a number, got the string "${index}"`,
    });
    assert.throws(() => s.server.receive(index, asString(0)), /receive: channel must be a number/);
    assert.throws(
      () => s.server.sendBlock(8, 0, new Uint8Array(1)),
      /clientIndex must be an integer in \[0, 7\], got 8/,
    );
    assert.throws(() => s.server.blockProgress(index, 2), /channel must be an integer in \[0, 1\], got 2/);
    assert.throws(() => s.server.stats(-1), RangeError);
    assert.throws(() => s.server.broadcast(asString(0), Chat, { text: 'x' }), /channel must be a number/);
    assert.throws(() => s.server.broadcast(0, Chat, { text: 'x' }, asString(0)), /except must be a number/);
    assert.equal(s.server.stats(index).messages.messagesSent, 0, 'nothing was queued by the refused calls');
    const idle = s.client(s.network.createTransport('10.0.0.99:1'));
    assert.throws(() => idle.receive(asString(0)), /MessageClient.receive: channel must be a number/);
    assert.throws(() => idle.blockProgress(5), /MessageClient.blockProgress: channel must be an integer/);
    assert.throws(() => s.clients[0].send(0.5, Chat, { text: 'x' }), RangeError);
  });
});

describe('broadcast (issue 15)', () => {
  it('queues one message to every connected client but the excepted one, and returns how many', () => {
    const s = session(3, 902n);
    const [a, b, c] = s.clients;
    assert.equal(s.server.broadcast(RELIABLE, Chat, { text: 'all' }), 3);
    assert.equal(s.server.broadcast(RELIABLE, Chat, { text: 'not b' }, b.client.clientIndex), 2);
    for (let i = 0; i < 20; i++) s.tick();
    assert.deepEqual(s.texts(a), ['all', 'not b']);
    assert.deepEqual(s.texts(b), ['all']);
    assert.deepEqual(s.texts(c), ['all', 'not b']);
  });

  it('a full send queue on any client throws naming it and queues nothing to anyone', () => {
    const s = session(2, 903n);
    const [a, b] = s.clients;
    for (let n = 0; n < 8; n++) s.server.send(b.client.clientIndex, RELIABLE, Chat, { text: `to b ${n}` });
    const before = [a, b].map((c) => s.server.stats(c.client.clientIndex).queues[RELIABLE].send);
    assert.throws(() => s.server.broadcast(RELIABLE, Chat, { text: 'lost?' }), {
      name: 'RangeError',
      message: `MessageServer.broadcast: client ${b.client.clientIndex}'s channel 0 send queue is full (sendQueueSize 8); nothing was queued to any client`,
    });
    const after = [a, b].map((c) => s.server.stats(c.client.clientIndex).queues[RELIABLE].send);
    assert.deepEqual(after, before);
    for (let i = 0; i < 20; i++) s.tick();
    assert.deepEqual(s.texts(a), [], 'a, whose queue had room, did not get it either');
    // Excepting the full client is fine.
    assert.equal(s.server.broadcast(RELIABLE, Chat, { text: 'a only' }, b.client.clientIndex), 1);
  });

  it('a bad value throws even with nobody connected; with nobody connected a good one queues for 0', () => {
    const s = messageSession({ protocolId: 904n, factory, channels });
    assert.equal(s.server.broadcast(UNRELIABLE, Chat, { text: 'anyone?' }), 0);
    assert.throws(() => s.server.broadcast(UNRELIABLE, Chat, { text: 'x'.repeat(201) }));
  });

  it('one serialization is shared: encode once, queue the same bytes on two connections', () => {
    const from = [new MessageConnection({ factory, channels }), new MessageConnection({ factory, channels })];
    const message = from[0].encode(RELIABLE, Chat, { text: 'shared' });
    assert.deepEqual(
      from.map((c) => c.sendEncoded(RELIABLE, message)),
      [0, 0],
    );
    for (const c of from) {
      const to = new MessageConnection({ factory, channels });
      const { data } = c.writePacket(1);
      assert.ok(to.readPacket(data, 0, data.length));
      const m = to.receive(RELIABLE);
      assert.ok(m?.is(Chat) && m.value.text === 'shared');
    }
  });
});

describe('stats() over a connection’s life (issue 15)', () => {
  it('before connecting and while connecting: zeros with the state, one queue entry per channel', () => {
    const s = messageSession({ protocolId: 905n, factory, channels });
    const client = s.client(s.network.createTransport('10.0.0.1:1'));
    const zeros = (state: string) => ({
      state,
      rtt: 0,
      packetLoss: 0,
      sentKbps: 0,
      receivedKbps: 0,
      lateAcks: 0,
      messages: {
        messagesSent: 0,
        messagesReceived: 0,
        packetsWritten: 0,
        packetsRead: 0,
        packetsRejected: 0,
        messagesDropped: 0,
        messagesResent: 0,
      },
      queues: [
        { send: 0, receive: 0 },
        { send: 0, receive: 0 },
      ],
    });
    assert.deepEqual(client.stats(), zeros('disconnected'));
    assert.deepEqual(s.server.stats(0), zeros('disconnected'), 'an empty slot');
    client.connect(s.token(1n), s.clock.now);
    assert.deepEqual(client.stats(), zeros('connecting'));
  });

  it('inside onDisconnect: the final figures of the connection that ended, on both ends; zeros after', () => {
    const s = session(1, 906n);
    const [client] = s.clients;
    const index = client.client.clientIndex;
    for (let n = 0; n < 3; n++) {
      client.send(RELIABLE, Chat, { text: `up ${n}` });
      s.server.send(index, RELIABLE, Chat, { text: `down ${n}` });
    }
    for (let i = 0; i < 20; i++) s.tick();
    client.send(RELIABLE, Chat, { text: 'never sent' });
    const live = client.stats();
    assert.equal(live.state, 'connected');
    client.disconnect();
    s.tick();
    assert.equal(s.clientEnds.length, 1);
    const ended = s.clientEnds[0].stats;
    assert.equal(ended.state, 'ended');
    assert.equal(ended.messages.messagesSent, 4);
    assert.equal(ended.messages.packetsWritten, live.messages.packetsWritten);
    assert.deepEqual(ended.queues[RELIABLE], { send: 1, receive: 3 });
    assert.equal(ended.rtt, live.rtt);
    assert.equal(ended.messages.packetsRead, live.messages.packetsRead);
    assert.equal(client.stats().state, 'disconnected');
    assert.equal(s.disconnects.length, 1);
    const atServer = s.disconnects[0].stats;
    assert.equal(atServer.state, 'ended');
    assert.equal(atServer.messages.messagesSent, 3);
    assert.ok(atServer.messages.packetsRead > 0);
    assert.equal(s.server.stats(index).state, 'disconnected');
  });

  it('the client’s onStateChange for the end also sees the final figures; its other state changes see zeros', () => {
    const s = messageSession({ protocolId: 909n, factory, channels });
    const seen: string[] = [];
    const client: MessageClient<typeof Chat> = new MessageClient({
      transport: s.network.createTransport('10.0.0.1:1'),
      aead: nobleAead,
      factory,
      channels,
      onStateChange: (state) => {
        const stats = client.stats();
        seen.push(`${state} ${stats.state} ${stats.messages.messagesSent}`);
      },
    });
    client.connect(s.token(1n), s.clock.now);
    for (let i = 0; i < 60 && !client.connected; i++) {
      s.clock.now += 1 / 60;
      s.server.update(s.clock.now);
      client.update(s.clock.now);
    }
    client.send(RELIABLE, Chat, { text: 'one' });
    client.disconnect();
    assert.deepEqual(seen, [
      `${ClientState.SendingConnectionRequest} connecting 0`,
      `${ClientState.SendingConnectionResponse} connecting 0`,
      `${ClientState.Connected} connected 0`,
      `${ClientState.Disconnected} ended 1`,
    ]);
  });
});

describe('what a disconnect discarded is reported (issue 9)', () => {
  it('the server’s onDisconnect lists the ids send and sendBlock returned and not acked, per channel', () => {
    const s = session(1, 907n);
    const [client] = s.clients;
    const index = client.client.clientIndex;
    const delivered = [0, 1].map((n) => s.server.send(index, RELIABLE, Chat, { text: `${n}` }));
    for (let i = 0; i < 20; i++) s.tick();
    assert.deepEqual(s.texts(client), ['0', '1']);
    const pending = [2, 3, 4].map((n) => s.server.send(index, RELIABLE, Chat, { text: `${n}` }));
    const block = s.server.sendBlock(index, RELIABLE, new Uint8Array(5000));
    const after = s.server.send(index, RELIABLE, Chat, { text: 'after the block' });
    s.server.send(index, UNRELIABLE, Chat, { text: 'unreliable: not reported' });
    assert.deepEqual([...delivered, ...pending, block, after], [0, 1, 2, 3, 4, 5, 6]);
    s.server.server.disconnect(index);
    assert.equal(s.disconnects.length, 1);
    assert.equal(s.disconnects[0].reason, 'kicked');
    assert.deepEqual(s.disconnects[0].undelivered, {
      messages: 4,
      blocks: 1,
      channels: [
        { messageIds: [2, 3, 4, 6], blockIds: [5] },
        { messageIds: [], blockIds: [] },
      ],
    });
  });

  it('the client reports its own in onDisconnect and keeps it in lastUndelivered until it connects again', () => {
    const s = session(1, 908n);
    const [client] = s.clients;
    assert.equal(client.lastUndelivered, null);
    const ids = [client.send(RELIABLE, Chat, { text: 'a' }), client.send(RELIABLE, Chat, { text: 'b' })];
    client.disconnect();
    assert.equal(s.clientEnds.length, 1);
    assert.equal(s.clientEnds[0].state, ClientState.Disconnected);
    const report = s.clientEnds[0].undelivered;
    assert.deepEqual(report.channels[RELIABLE].messageIds, ids);
    assert.equal(report.messages, 2);
    assert.equal(client.lastUndelivered, report);
    client.connect(s.token(1n), s.clock.now);
    for (let i = 0; i < 60 && !client.connected; i++) s.tick();
    assert.ok(client.connected);
    assert.equal(client.lastUndelivered, null);
  });
});
