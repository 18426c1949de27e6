/**
 * A room's per-client hooks (onAuth, onJoin, onReconnect, onMessage, onDrop, onLeave) run under
 * a guard that charges a throw, or an async hook's rejection, to the client alone: what a client
 * sends (its join options, its messages) may be what made the hook throw, so it must not be a
 * button that ends the room for everyone (room-level code failing is room-failures.ts).
 */
import type { Room, RoomClient } from './room.js';

export interface ClientHookParts {
  counters: { clientHookErrors: number };
  report: (error: unknown, where: string) => void;
  /** Disconnects the client if it is still joined in its room (a refused or gone one is left be). */
  eject: (client: RoomClient) => void;
}

export class ClientHooks {
  constructor(private readonly o: ClientHookParts) {}

  /** Runs `call`, a hook of `room` for `client` (`where`: the hook's name). */
  run(room: Room, client: RoomClient, where: string, call: () => unknown): void {
    try {
      this.settle(room, client, where, call());
    } catch (error) {
      this.threw(room, client, where, error);
    }
  }

  /** What a hook returned: a promise that rejects costs the client too. */
  settle(room: Room, client: RoomClient, where: string, result: unknown): void {
    if (isThenable(result))
      Promise.resolve(result).catch((error: unknown) => this.threw(room, client, where, error));
  }

  /** Reported (room, hook and client named), counted, and the client ejected. */
  threw(room: Room, client: RoomClient, where: string, error: unknown): void {
    this.o.counters.clientHookErrors++;
    this.o.report(error, `room ${room.name} ${where} client ${client.seatId}`);
    this.o.eject(client);
  }
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}
