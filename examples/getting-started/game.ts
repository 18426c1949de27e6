// What the server and the client must agree on, in one module both import: the protocol id, the
// message types and the channels (the same lists, in the same order, on both ends).
import { t } from 'ghostwire';
import { defineMessage, MessageFactory } from 'ghostwire/channels';

/** Your game's protocol id: any 64-bit number, a bigint. Change it when the protocol changes. */
export const PROTOCOL_ID = 0x6a61_6d5f_6761_6d65n;

/** Client → server: what a player says. The server decides who said it. */
export const Say = defineMessage('say', t.object({ text: t.string(200) }));
/** Server → clients: a line of chat, with its author. */
export const Chat = defineMessage('chat', t.object({ from: t.string(32), text: t.string(200) }));
/** Client → server: where the player is, 1 cm precision. */
export const Move = defineMessage(
  'move',
  t.object({ x: t.float(-100, 100, 0.01), y: t.float(-100, 100, 0.01) }),
);

export const factory = new MessageFactory([Say, Chat, Move]);
export const RELIABLE = 0; // chat: every message, once, in order
export const POSITIONS = 1; // moves: only ever the newest
export const channels = [{ kind: 'reliable-ordered' as const }, { kind: 'unreliable-sequenced' as const }];

/** Seconds from a monotonic clock: what every `update(now)` takes. */
export const now = (): number => performance.now() / 1000;
