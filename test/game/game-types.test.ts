/**
 * A game's types are named from its definition: `GameClient<typeof game>`, `StateOf`, `InputOf`,
 * `EventOf`, `MessageOf`. The checks are the compiler's (this file does not build when a type is
 * wrong); the run checks that `connect` infers the same type a user writes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import type { EventOf, InputOf, MessageOf, StateOf } from '../../src/game/game-types.js';
import { type ArenaInput, arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

type Arena = typeof arena;
/** true when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <T extends true>(): T => true as T;

type Avatar = { x: number; y: number; score: number };

// The helpers name the declared types.
same<Same<StateOf<Arena>, Avatar>>();
same<Same<StateOf<Arena, 'avatar'>, Avatar>>();
same<Same<StateOf<Arena, 'target'>, { x: number; y: number }>>();
same<Same<InputOf<Arena>, ArenaInput>>();
same<Same<EventOf<Arena, 'fired'>, { by: number; hit: boolean }>>();
same<Same<MessageOf<Arena, 'chat'>, { text: string }>>();
// A client typed with the game alone has the game's types.
same<Same<NonNullable<GameClient<Arena>['me']>['state'], Avatar>>();
same<Same<NonNullable<GameClient<Arena>['me']>['type'], 'avatar'>>();
same<Same<Parameters<GameClient<Arena>['update']>[0], ArenaInput>>();
same<Same<GameClient<Arena>['entities'][number]['type'], 'avatar' | 'target'>>();
// connect infers the same type.
same<Same<Awaited<ReturnType<typeof GameClient.connect<Arena>>>, GameClient<Arena>>>();

/** Never called: compiled, so a wrong name or value here fails the build. */
export function typedUse(client: GameClient<Arena>): void {
  client.send('chat', { text: 'hi' });
  // @ts-expect-error a value outside the message's type
  client.send('chat', { words: 'hi' });
  // @ts-expect-error a message the game does not have
  client.send('shout', { text: 'hi' });
  client.on('fired', (value) => same<Same<typeof value, { by: number; hit: boolean }>>());
  // @ts-expect-error an event the game does not have
  client.on('exploded', () => {});
  // @ts-expect-error an entity type the game does not have
  const nobody: StateOf<Arena, 'nobody'> = { x: 0 };
  void nobody;
  for (const e of client.entities)
    if (e.type === 'target') same<Same<typeof e.state, { x: number; y: number }>>();
}

describe('game types named from the definition', () => {
  it('a client typed GameClient<typeof game> is what connect gives, with its typed view', async () => {
    const server = await GameServer.start(arenaRules(emptyLog()), { port: 0, transports: ['udp'] });
    try {
      const client: GameClient<Arena> = await GameClient.connect(arena, server.url);
      try {
        await play(
          [client],
          () => STILL,
          'its own avatar',
          5000,
          () => client.me !== null,
        );
        const state: StateOf<Arena> | undefined = client.me?.state;
        assert.equal(state?.score, 0);
        assert.equal(client.game, arena);
      } finally {
        client.close();
      }
    } finally {
      await server.close();
    }
  });
});
