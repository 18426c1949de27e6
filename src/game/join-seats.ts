/**
 * The players each client address holds on a GameServer: the tokens its join endpoint issued to
 * that address and not yet expired, used or not, while their connection is not over. One address
 * (an IPv4 address, or an IPv6 /64: src/transport/address-key.ts) may hold `perAddress` at most,
 * so a client asking for tokens in a loop cannot take every seat of the server.
 *
 * A token is found again at connect by its client id (which the server chose when issuing it).
 * A disconnect frees its place; a token still within its life can connect again (netcode lets the
 * same address reuse it), and then takes a place again if its address has one free, else it is
 * refused. Time is the caller's, in seconds.
 */
import { addressKey } from '../transport/address-key.js';

interface Seat {
  key: string;
  /** Seconds (the caller's clock) after which the token can no longer open a connection. */
  expiresAt: number;
  /** Whether it holds one of its address's places now. */
  holding: boolean;
  connected: boolean;
  /** Who the token was issued to (auth's `{ userId }`), or null. */
  userId: string | null;
}

export class JoinSeats {
  private readonly seats = new Map<bigint, Seat>();
  private readonly held = new Map<string, number>();
  private nextId: bigint;

  /** `firstId`: the first client id issued (spectators' seats count from their own base). */
  constructor(
    readonly perAddress: number,
    firstId = 1n,
  ) {
    this.nextId = firstId;
  }

  /** Places `address` (an IP address, any form) holds now. */
  holding(address: string): number {
    return this.held.get(addressKey(address)) ?? 0;
  }

  /** Tokens tracked (live or connected). */
  get size(): number {
    return this.seats.size;
  }

  /**
   * A client id for a new token issued to `address`, valid until `expiresAt`; null when the
   * address already holds `perAddress` places.
   */
  issue(address: string, now: number, expiresAt: number, userId: string | null = null): bigint | null {
    this.expire(now);
    const key = addressKey(address);
    if ((this.held.get(key) ?? 0) >= this.perAddress) return null;
    const id = this.nextId++;
    this.seats.set(id, { key, expiresAt, holding: true, connected: false, userId });
    this.add(key, 1);
    return id;
  }

  /** Who a token was issued to (null: unknown token, or none named). */
  userIdOf(clientId: bigint): string | null {
    return this.seats.get(clientId)?.userId ?? null;
  }

  /** A token's connection opened: false when it must be refused (unknown, or its address is full). */
  connected(clientId: bigint, now: number): boolean {
    this.expire(now);
    const seat = this.seats.get(clientId);
    if (seat === undefined) return false;
    if (!seat.holding) {
      if ((this.held.get(seat.key) ?? 0) >= this.perAddress) return false;
      seat.holding = true;
      this.add(seat.key, 1);
    }
    seat.connected = true;
    return true;
  }

  /** A token's connection ended: its place is free; the token is forgotten once expired. */
  disconnected(clientId: bigint, now: number): void {
    const seat = this.seats.get(clientId);
    if (seat === undefined) return;
    seat.connected = false;
    if (seat.holding) {
      seat.holding = false;
      this.add(seat.key, -1);
    }
    this.expire(now);
  }

  /** Frees the places of tokens past their life that never connected (or are not connected now). */
  expire(now: number): void {
    // Tokens are issued in expiry order, so the map's order is; connected ones are skipped over.
    for (const [id, seat] of this.seats) {
      if (seat.expiresAt > now) break;
      if (seat.connected) continue;
      if (seat.holding) this.add(seat.key, -1);
      this.seats.delete(id);
    }
  }

  private add(key: string, n: number): void {
    const count = (this.held.get(key) ?? 0) + n;
    if (count <= 0) this.held.delete(key);
    else this.held.set(key, count);
  }
}
