/**
 * Typed receive (issue 15). Half of this file is checked by the type-checker: the narrowing below
 * compiles only if `receive()` is typed by the factory's message types, and each
 * `@ts-expect-error` line makes `tsc` (so `npm test`) fail if that misuse ever stops being an
 * error. The runtime half checks the guard itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Block,
  defineMessage,
  MessageConnection,
  MessageFactory,
  type MessageServer,
  type MessageValue,
  type ReceivedMessage,
} from '../../src/channels/index.js';
import { t } from '../../src/schema/schema.js';
import { messageSession } from '../support/message-session.js';

const Chat = defineMessage('chat', t.object({ text: t.string(200) }));
const Position = defineMessage(
  'position',
  t.object({ x: t.float(-512, 512, 0.01), z: t.float(-512, 512, 0.01) }),
);
const Hit = defineMessage('hit', {
  create: () => ({ target: 0, damage: 0 }),
  serialize: (s, m) => {
    m.target = s.int(m.target, 0, 4095);
    m.damage = s.int(m.damage, 0, 255);
  },
});
const factory = new MessageFactory([Chat, Position, Hit]);
const channels = [{ kind: 'reliable-ordered' as const }];

/** True exactly when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
/** Compiles only when given `true`. */
function typeIs<T extends true>(_proof?: T): void {}

// MessageValue extracts a type's value, from a schema or a serialize function; Block's is bytes.
typeIs<Equal<MessageValue<typeof Chat>, { text: string }>>();
typeIs<Equal<MessageValue<typeof Hit>, { target: number; damage: number }>>();
typeIs<Equal<MessageValue<typeof Block>, Uint8Array>>();
// @ts-expect-error a chat's text is a string
const badChat: MessageValue<typeof Chat> = { text: 1 };

/**
 * A few packets from one connection straight into another, each acked at once (no packet layer:
 * nothing is lost), so a block behind messages goes once they are acked.
 */
function deliver(from: MessageConnection, to: MessageConnection, now: number): void {
  for (let k = 0; k < 3; k++) {
    const { data, record } = from.writePacket(now + k);
    assert.equal(to.readPacket(data, 0, data.length), true, to.lastRejection ?? '');
    from.acked(record);
  }
}

function pair() {
  return { a: new MessageConnection({ factory, channels }), b: new MessageConnection({ factory, channels }) };
}

describe('typed receive', () => {
  it('is(Type) narrows a received message to its type, so its value needs no cast', () => {
    const { a, b } = pair();
    a.send(0, Chat, { text: 'gg' });
    a.send(0, Position, { x: 1.5, z: -2 });
    a.sendBlock(0, new Uint8Array([7, 8, 9]));
    deliver(a, b, 1);
    const seen: string[] = [];
    for (let m = b.receive(0); m !== null; m = b.receive(0)) {
      // @ts-expect-error not narrowed yet: only chat messages have text
      m.value.text;
      if (m.is(Chat)) {
        const text: string = m.value.text;
        seen.push(`chat ${text}`);
        // @ts-expect-error narrowed to chat: no x
        m.value.x;
      } else if (m.is(Position)) seen.push(`position ${m.value.x.toFixed(2)} ${m.value.z.toFixed(2)}`);
      else if (m.is(Block)) {
        const bytes: Uint8Array = m.value;
        seen.push(`block ${[...bytes].join(',')}`);
      }
      // @ts-expect-error a type the factory does not list is no message this connection receives
      if (m.is(defineMessage('stranger', t.object({ y: t.bool() })))) m.value.text;
    }
    assert.deepEqual(seen, ['chat gg', 'position 1.50 -2.00', 'block 7,8,9']);
  });

  it('name discriminates the union: a switch over it narrows each case and is checked exhaustive', () => {
    const { a, b } = pair();
    a.send(0, Hit, { target: 12, damage: 30 });
    a.send(0, Chat, { text: 'hi' });
    a.sendBlock(0, new Uint8Array(3));
    a.send(0, Position, { x: 0, z: 4 });
    deliver(a, b, 1);
    const seen: string[] = [];
    for (let m = b.receive(0); m !== null; m = b.receive(0)) {
      switch (m.name) {
        case 'chat':
          seen.push(m.value.text);
          break;
        case 'position':
          seen.push(`z ${m.value.z}`);
          break;
        case 'hit':
          seen.push(`hit ${m.value.target} for ${m.value.damage}`);
          break;
        case 'block':
          seen.push(`${m.value.byteLength} bytes`);
          break;
        default: {
          const unreachable: never = m; // every name of the factory (and Block) has a case
          throw new Error(`unexpected ${unreachable}`);
        }
      }
    }
    assert.deepEqual(seen, ['hit 12 for 30', 'hi', '3 bytes', 'z 4']);
  });

  it('is(Type) is true only for its own type, and holds no per-message state (name and is live on the prototype)', () => {
    const { a, b } = pair();
    a.send(0, Chat, { text: 'x' });
    a.sendBlock(0, new Uint8Array(1));
    deliver(a, b, 1);
    const chat = b.receive(0)!;
    const block = b.receive(0)!;
    assert.deepEqual(
      [chat.is(Chat), chat.is(Position), chat.is(Hit), chat.is(Block)],
      [true, false, false, false],
    );
    assert.deepEqual([block.is(Block), block.is(Chat)], [true, false]);
    assert.equal(chat.name, 'chat');
    assert.equal(block.name, 'block');
    assert.equal(chat.type, Chat);
    // Two fields per message: the guard and the name are shared methods, not closures per message.
    assert.deepEqual(Object.keys(chat).sort(), ['type', 'value']);
    assert.equal(chat.is, block.is);
  });

  it('send is typed by the factory: a wrong value or a type the factory does not list fails to compile', () => {
    const { a } = pair();
    // @ts-expect-error text must be a string
    assert.throws(() => a.send(0, Chat, { text: 1 }));
    // @ts-expect-error a block goes by sendBlock; Block is not in the factory
    assert.throws(() => a.send(0, Block, new Uint8Array(1)), /not registered/);
    assert.equal(typeof a.send(0, Chat, { text: 'ok' }), 'number');
  });

  it('MessageServer and MessageClient infer the factory from their options: the README block example compiles and runs', () => {
    const session = messageSession({ protocolId: 15n, factory, channels });
    typeIs<Equal<typeof session.server, MessageServer<typeof Chat | typeof Position | typeof Hit>>>();
    const { server, clock } = session;
    const client = session.client(session.network.createTransport('10.0.0.1:1'));
    client.connect(session.token(1n), clock.now);
    const tick = () => session.tick([client]);
    for (let i = 0; i < 30 && !client.connected; i++) tick();
    const index = client.client.clientIndex;
    const map = Uint8Array.from({ length: 3000 }, (_, i) => i & 0xff);
    server.sendBlock(index, 0, map);
    server.send(index, 0, Chat, { text: 'map sent' });
    let loaded: Uint8Array | null = null;
    let chat = '';
    for (let i = 0; i < 60; i++) {
      tick();
      for (let m = client.receive(0); m !== null; m = client.receive(0)) {
        if (m.is(Block)) loaded = m.value;
        else if (m.is(Chat)) chat = m.value.text;
      }
    }
    assert.deepEqual(loaded, map);
    assert.equal(chat, 'map sent');
  });

  it('an untyped factory still receives messages, as unknown values until narrowed', () => {
    const loose: MessageFactory = factory;
    const a = new MessageConnection({ factory: loose, channels });
    const b = new MessageConnection({ factory: loose, channels });
    a.send(0, Chat, { text: 'loose' });
    deliver(a, b, 1);
    const m = b.receive(0)!;
    typeIs<Equal<typeof m.value, unknown>>();
    const received: ReceivedMessage = m;
    assert.ok(received.is(Chat) && received.value.text === 'loose');
  });
});

void badChat;
