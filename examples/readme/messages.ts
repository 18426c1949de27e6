/**
 * The README's messages and channels examples, verbatim between the region markers; what they leave
 * to the reader is declared around them so that tsc checks them (test/project/readme-examples.test.ts).
 */
import type { Address, DatagramTransport } from 'ghostwire/transport';

declare const protocolId: bigint;
declare const privateKey: Uint8Array;
declare const publicAddresses: Address[];
declare const transports: DatagramTransport[];
declare const transport: DatagramTransport;
declare const token: Uint8Array;
declare const now: number;
declare const clientIndex: number;
declare const mapBytes: Uint8Array;
declare function loadMap(bytes: Uint8Array): void;

// #region readme
import { defineMessage, MessageClient, MessageFactory, MessageServer, type MessageValue } from 'ghostwire/channels';
import { t } from 'ghostwire/node';

const Chat = defineMessage('chat', t.object({ text: t.string(200) }));
const Position = defineMessage('position', t.object({ x: t.float(-512, 512, 0.01), z: t.float(-512, 512, 0.01) }));
type ChatValue = MessageValue<typeof Chat>;                    // { text: string }
const factory = new MessageFactory([Chat, Position]);          // the same list, in the same order, on both ends
const channels = [
  { kind: 'reliable-ordered' as const },                       // chat: every message, once, in order
  { kind: 'unreliable-sequenced' as const, priority: 1 },      // positions: only ever newer ones
];

// Both are typed by the factory's messages (inferred: no type arguments to write).
const server = new MessageServer({ protocolId, privateKey, publicAddresses, transports, factory, channels });
const client = new MessageClient({ transport, factory, channels });
client.connect(token, now);

// Each tick: update (one packet per connection, packed to 1150 bytes by priority), then talk.
server.update(now);
client.update(now);
const id = client.send(0, Chat, { text: 'gg' });               // typed by the schema; returns the channel's id for it
server.broadcast(1, Position, { x: 3, z: -4 });                // every connected client, serialized once
for (let m = server.receive(clientIndex, 0); m !== null; m = server.receive(clientIndex, 0)) {
  if (m.is(Chat)) console.log(m.value.text);                   // narrowed: m.value is a ChatValue, no cast
}
// #endregion

// #region readme
const Hit = defineMessage('hit', {
  create: () => ({ target: 0, damage: 0 }),
  serialize: (s, m) => { m.target = s.int(m.target, 0, 4095); m.damage = s.int(m.damage, 0, 255); },
});
// #endregion

// #region readme
const game = new MessageServer({
  protocolId, privateKey, publicAddresses, transports, factory, channels,
  onDisconnect: (clientIndex, clientId, reason, undelivered) => {
    console.log(reason, undelivered.channels[0].messageIds, game.stats(clientIndex).messages);
  },
});
const player = new MessageClient({
  transport, factory, channels,
  onDisconnect: (undelivered, state) => {
    console.log(state, undelivered.messages, player.stats().rtt);
  },
});
// #endregion

// #region readme
import { Block } from 'ghostwire/channels';

server.sendBlock(clientIndex, 0, mapBytes);                     // fragments of blockFragmentBytes (1024)
server.blockProgress(clientIndex, 0).sending;                   // { ackedBytes, totalBytes } or null
client.blockProgress(0).receiving;                              // { receivedBytes, totalBytes } or null
const m = client.receive(0);
if (m !== null && m.is(Block)) loadMap(m.value);                // m.value: Uint8Array
// #endregion

void [id, Hit];
export type { ChatValue };
