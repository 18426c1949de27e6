import { type ReliableConfig, reliableConfig } from '../packet/config.js';
import { ReliableEndpoint, transmitBufferBytes } from '../packet/reliable-endpoint.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { Address } from '../transport/address.js';
import { addressText } from './address-codec.js';
import { type Aead, defaultAead } from './aead.js';
import { readU64 } from './bytes.js';
import { readChallengeToken, writeChallengeToken } from './challenge-token.js';
import { ClientSlot, NO_KEY, NO_USER_DATA } from './client-slot.js';
import {
  decryptConnectTokenPrivate,
  privateAssociatedData,
  readConnectTokenPrivate,
} from './connect-token.js';
import {
  CONNECT_TOKEN_NONCE_BYTES,
  CONNECT_TOKEN_PRIVATE_BYTES,
  KEY_BYTES,
  MAC_BYTES,
  MAX_PACKET_BYTES,
  NUM_DISCONNECT_PACKETS,
  PACKET_SEND_RATE,
  PacketType,
} from './constants.js';
import { DeferredDatagrams } from './deferred-datagrams.js';
import { PacketCodec, packetView, typeMask } from './packets.js';
import { type PendingHandshake, PendingHandshakes } from './pending-handshakes.js';
import {
  checkServerOptions,
  type ServerCounters,
  type ServerDisconnectReason,
  type ServerOptions,
  zeroServerCounters,
} from './server-options.js';
import { SlotHandler } from './slot-handler.js';
import { UsedTokens } from './used-tokens.js';

export type { ServerCounters, ServerDisconnectReason, ServerOptions } from './server-options.js';

const FROM_CLIENT = typeMask(PacketType.KeepAlive, PacketType.Payload, PacketType.Disconnect);
const RESPONSE = typeMask(PacketType.ConnectionResponse);

/**
 * A netcode 1.02 dedicated server: accepts clients holding connect tokens issued for it, keeps
 * per-client keys, sequences and replay protection, sends keep-alives at 10 Hz, times clients
 * out, and carries a ReliableEndpoint inside each connection's payload packets (acks, delivery
 * notification, fragments, statistics). A pure state machine over transports: drive it with
 * `update(now)`, `now` in seconds.
 */
export class Server {
  readonly maxClients: number;
  private readonly counters: ServerCounters = zeroServerCounters();
  private readonly options: ServerOptions;
  private readonly aead: Aead;
  private readonly codec: PacketCodec;
  private readonly slots: ClientSlot[];
  private readonly byAddress = new Map<Address, number>();
  /** Addresses that presented a valid token, with their keys, until they answer the challenge. */
  private readonly pending: PendingHandshakes;
  /** Tokens presented or connected, each with its first address: a token serves one address. */
  private readonly usedTokens: UsedTokens;
  private readonly challengeKey: Uint8Array<ArrayBuffer>;
  private challengeSequence = 0;
  /** For packets to addresses not connected (challenge, denied): from 2^63, so a restarted
   * server never reuses a nonce a client key already saw from per-client sequences. */
  private globalSequence = 1n << 63n;
  private numConnected = 0;
  private time = 0;
  private lastUpdate = NO_TIME_YET;
  private running = true;
  private readonly buffer = new Uint8Array(MAX_PACKET_BYTES + 64);
  /**
   * Where every client's endpoint writes its outgoing packets: each is encrypted into `buffer` by
   * sendPayload at once, so one buffer serves all clients (made with the first endpoint).
   */
  private transmitBuffer: Uint8Array | null = null;
  private reliable: ReliableConfig | null = null;
  private readonly scratch = new Uint8Array(MAX_PACKET_BYTES + 64);
  private readonly view = packetView();
  /** What receiveHandshakes leaves for the next update, and its budget. */
  private readonly deferred = new DeferredDatagrams();
  private readonly handshakeHandlers: ((from: Address, data: Uint8Array) => void)[];

  constructor(options: ServerOptions) {
    this.options = options;
    const { maxClients, maxPending } = checkServerOptions(options);
    this.maxClients = maxClients;
    this.aead = options.aead ?? defaultAead();
    this.codec = new PacketCodec(options.protocolId, this.aead);
    this.slots = Array.from({ length: this.maxClients }, () => new ClientSlot());
    this.pending = new PendingHandshakes(maxPending);
    this.usedTokens = new UsedTokens(2 * maxPending, Math.max(1024, 8 * this.maxClients));
    // A fresh key per server run: challenge tokens from an earlier run no longer open.
    const challengeKey = new Uint8Array(KEY_BYTES);
    globalThis.crypto.getRandomValues(challengeKey);
    this.challengeKey = challengeKey;
    this.deferred.budget = options.maxDatagramsPerUpdate ?? 1024;
    this.handshakeHandlers = options.transports.map(
      (_, t) => (from: Address, data: Uint8Array) => this.receiveOrDefer(t, from, data),
    );
  }

  /** What the server has counted: connections, refusals, dropped packets (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<ServerCounters> {
    return this.counters;
  }

  get connectedClients(): number {
    return this.numConnected;
  }

  isConnected(clientIndex: number): boolean {
    return this.slots[clientIndex]?.connected === true;
  }

  clientId(clientIndex: number): bigint {
    return this.connectedSlot(clientIndex).clientId;
  }

  clientAddress(clientIndex: number): Address {
    return this.connectedSlot(clientIndex).address;
  }

  clientUserData(clientIndex: number): Uint8Array {
    return this.connectedSlot(clientIndex).userData;
  }

  /** The connection's ReliableEndpoint: RTT, loss, bandwidth, counters. */
  endpoint(clientIndex: number): ReliableEndpoint<unknown> {
    const endpoint = this.connectedSlot(clientIndex).endpoint;
    if (endpoint === null)
      throw new Error('Server.endpoint: this server carries raw payloads (reliable: false)');
    return endpoint;
  }

  private connectedSlot(clientIndex: number): ClientSlot {
    const slot = this.slots[clientIndex];
    if (slot === undefined || !slot.connected)
      throw new RangeError(`Server: client ${clientIndex} is not connected`);
    return slot;
  }

  /** Sends data[0, length) to a connected client through its ReliableEndpoint; returns the packet's sequence. */
  send(clientIndex: number, data: Uint8Array, length = data.length, record?: unknown): number {
    const slot = this.connectedSlot(clientIndex);
    if (slot.endpoint !== null) return slot.endpoint.sendPacket(data, length, record);
    const sequence = slot.sequence;
    this.sendPayload(clientIndex, data, length);
    return sequence;
  }

  /** Kicks a client: ten disconnect packets, then its slot is free. */
  disconnect(clientIndex: number): void {
    this.connectedSlot(clientIndex);
    this.disconnectSlot(clientIndex, 'kicked', true);
  }

  /**
   * Disconnects every client and stops accepting connections. As the standard asks of a
   * restarted server, the global sequence goes back to 2^63 and a new challenge key is drawn, so
   * nothing from the previous run (pending handshakes, challenge tokens) carries over.
   */
  stop(): void {
    for (let i = 0; i < this.maxClients; i++) {
      if (this.slots[i].connected) this.disconnectSlot(i, 'server shut down', true);
    }
    this.running = false;
    this.globalSequence = 1n << 63n;
    this.challengeSequence = 0;
    globalThis.crypto.getRandomValues(this.challengeKey);
    this.pending.clear();
    this.usedTokens.clear();
    this.deferred.clear();
  }

  /** Accepts connections again after `stop()`. */
  start(): void {
    this.running = true;
  }

  get isRunning(): boolean {
    return this.running;
  }

  update(now: number): void {
    this.lastUpdate = this.time = checkTime('Server.update', now, this.lastUpdate);
    const max = this.options.maxDatagramsPerUpdate ?? 1024;
    const transports = this.options.transports;
    // Every endpoint reads `now` before this tick's datagrams arrive: acks in them are timed now.
    for (let i = 0; i < this.maxClients; i++) this.slots[i].endpoint?.advanceTime(now);
    this.deferred.budget = max;
    for (let t = 0; t < transports.length; t++) {
      transports[t].update(now);
      const handler = (from: Address, data: Uint8Array) => this.receive(t, from, data);
      this.deferred.drain(t, handler);
      transports[t].receive(handler, max);
    }
    for (let i = 0; i < this.maxClients; i++) {
      const slot = this.slots[i];
      if (!slot.connected) continue;
      slot.endpoint?.update(now);
      if (!slot.connected) continue; // a handler may have kicked it
      if (slot.lastSend + 1 / PACKET_SEND_RATE <= now) this.sendKeepAlive(i);
      if (slot.timeout > 0 && slot.lastReceive + slot.timeout < now)
        this.disconnectSlot(i, 'timed out', false);
    }
  }

  /**
   * Between updates: answers connection requests and challenge responses as they arrive, so a
   * handshake's round trips need not wait for the caller's next update each. Datagrams from
   * connected clients are kept, in order, for the next update (which times and handles them as
   * always); handshake packets are checked exactly as update does, and all the calls between two
   * updates take at most maxDatagramsPerUpdate datagrams in all. `now` in seconds.
   */
  receiveHandshakes(now: number): void {
    this.lastUpdate = this.time = checkTime('Server.receiveHandshakes', now, this.lastUpdate);
    const transports = this.options.transports;
    const max = this.options.maxDatagramsPerUpdate ?? 1024;
    const deferred = this.deferred;
    deferred.prepare(transports.length, max);
    for (let t = 0; t < transports.length && deferred.budget > 0; t++) {
      transports[t].update(now);
      deferred.budget -= transports[t].receive(this.handshakeHandlers[t], deferred.budget);
    }
  }

  /** Datagrams from connected clients that receiveHandshakes had no room left to keep. */
  get deferredDropped(): number {
    return this.deferred.dropped;
  }

  private receiveOrDefer(transport: number, from: Address, data: Uint8Array): void {
    if (this.byAddress.has(from)) this.deferred.push(transport, from, data);
    else this.receive(transport, from, data);
  }

  private receive(transport: number, from: Address, data: Uint8Array): void {
    if (!this.running) return;
    const length = data.length;
    if (length < 1 || length > MAX_PACKET_BYTES) {
      this.counters.rejectedPackets++;
      return;
    }
    if (data[0] === PacketType.ConnectionRequest) {
      this.receiveRequest(transport, from, data);
      return;
    }
    const index = this.byAddress.get(from);
    // Decrypt into our own buffer: the transport's stays untouched.
    const packet = this.scratch;
    packet.set(data);
    const view = this.view;
    if (index !== undefined) {
      const slot = this.slots[index];
      if (!this.codec.readEncrypted(packet, length, slot.receiveKey, FROM_CLIENT, view, slot.replay)) {
        if (view.reason === 'replayed packet') this.counters.replayedPackets++;
        else this.counters.rejectedPackets++;
        return;
      }
      slot.lastReceive = this.time;
      if (view.type === PacketType.Disconnect) {
        this.disconnectSlot(index, 'client disconnected', false);
        return;
      }
      slot.confirmed = true;
      if (view.type === PacketType.Payload)
        if (slot.endpoint !== null)
          slot.endpoint.receivePacket(packet, view.payloadOffset, view.payloadLength);
        else this.options.onPacket?.(index, packet, view.payloadOffset, view.payloadLength);
      return;
    }
    // Not connected: only a challenge response from an address that presented a valid token,
    // and no decryption at all for anyone else.
    const pending = this.pending.get(from, this.time);
    if (pending === undefined) {
      this.counters.unknownAddress++;
      return;
    }
    if (!this.codec.readEncrypted(packet, length, pending.receiveKey, RESPONSE, view)) {
      this.counters.responsesInvalid++;
      return;
    }
    pending.lastAccess = this.time;
    this.receiveResponse(from, pending, packet);
  }

  private receiveRequest(transport: number, from: Address, data: Uint8Array): void {
    const c = this.counters;
    const expireAt = this.codec.readConnectionRequest(data, data.length);
    if (expireAt < 0) {
      c.requestsInvalid++;
      return;
    }
    const expireTimestamp = readU64(data, expireAt);
    const unixNow = (this.options.unixTime ?? (() => Math.floor(Date.now() / 1000)))();
    if (expireTimestamp <= unixNow) {
      c.requestsExpired++;
      return;
    }
    // The token's remaining life on the server's clock: nothing kept for it outlives it.
    const tokenExpires = this.time + (expireTimestamp - unixNow);
    // The one decryption an unknown address can cause: a forged token fails here, with no state kept.
    const sealed = this.scratch;
    const tokenNonce = data.subarray(expireAt + 8, expireAt + 8 + CONNECT_TOKEN_NONCE_BYTES);
    sealed.set(data.subarray(expireAt + 8 + CONNECT_TOKEN_NONCE_BYTES), 0);
    const privateData = sealed.subarray(0, CONNECT_TOKEN_PRIVATE_BYTES);
    const ad = privateAssociatedData(this.options.protocolId, expireTimestamp);
    if (!decryptConnectTokenPrivate(privateData, ad, tokenNonce, this.options.privateKey, this.aead)) {
      c.requestsBadToken++;
      return;
    }
    const token = readConnectTokenPrivate(privateData);
    if (token === null) {
      c.requestsBadToken++;
      return;
    }
    if (!token.serverAddresses.some((a) => this.options.publicAddresses.includes(a))) {
      c.requestsWrongServer++;
      return;
    }
    if (this.byAddress.has(from) || this.findClient(token.clientId) >= 0) {
      c.requestsAlreadyConnected++;
      return;
    }
    // A token serves one address: the same token from another address is refused.
    const mac = data.subarray(data.length - MAC_BYTES);
    let tokenKey = '';
    for (let i = 0; i < MAC_BYTES; i++) tokenKey += String.fromCharCode(mac[i]);
    if (this.usedTokens.heldElsewhere(tokenKey, from, this.time)) {
      c.requestsTokenReused++;
      return;
    }
    if (this.usedTokens.see(tokenKey, from, tokenExpires, this.time)) c.seenTokensEvicted++;
    if (this.numConnected >= this.maxClients) {
      c.deniedFull++;
      this.sendGlobal(transport, from, token.serverToClientKey, (out, seq, key) =>
        this.codec.writeDenied(out, seq, key),
      );
      return;
    }
    const timeout = token.timeoutSeconds;
    const handshake: PendingHandshake = {
      sendKey: token.serverToClientKey,
      receiveKey: token.clientToServerKey,
      timeout,
      // A handshake lasts its timeout, and never beyond its token (even with timeouts disabled).
      expireTime: timeout >= 0 ? Math.min(this.time + timeout, tokenExpires) : tokenExpires,
      lastAccess: this.time,
      transport,
      token: tokenKey,
      tokenExpires,
    };
    if (this.pending.set(from, handshake, this.time)) c.handshakesEvicted++;
    c.requestsAccepted++;
    const challenge = this.scratch.subarray(CONNECT_TOKEN_PRIVATE_BYTES, CONNECT_TOKEN_PRIVATE_BYTES + 300);
    const sequence = this.challengeSequence++;
    // Sealed to this address: a captured response replayed from another one does not open.
    const bound = addressText(from);
    writeChallengeToken(
      challenge,
      0,
      token.clientId,
      token.userData,
      sequence,
      this.challengeKey,
      this.aead,
      bound,
    );
    this.sendGlobal(transport, from, token.serverToClientKey, (out, seq, key) =>
      this.codec.writeChallengeOrResponse(out, PacketType.ConnectionChallenge, seq, key, sequence, challenge),
    );
  }

  private receiveResponse(from: Address, handshake: PendingHandshake, packet: Uint8Array): void {
    const view = this.view;
    const challenge = readChallengeToken(
      packet,
      view.challengeTokenOffset,
      view.challengeSequence,
      this.challengeKey,
      this.aead,
      addressText(from),
    );
    if (challenge === null) {
      this.counters.responsesInvalid++;
      return;
    }
    if (this.findClient(challenge.clientId) >= 0) {
      this.counters.requestsAlreadyConnected++;
      return;
    }
    if (this.numConnected >= this.maxClients) {
      this.counters.deniedFull++;
      this.sendGlobal(handshake.transport, from, handshake.sendKey, (out, seq, key) =>
        this.codec.writeDenied(out, seq, key),
      );
      return;
    }
    let index = 0;
    while (this.slots[index].connected) index++;
    const slot = this.slots[index];
    slot.connected = true;
    slot.confirmed = false;
    slot.clientId = challenge.clientId;
    slot.address = from;
    slot.transport = handshake.transport;
    // The keys and user data a connection keeps, in one buffer: a typed array's own buffer costs
    // ~150 bytes besides its bytes (fresh per connection, so a caller's userData stays valid).
    const kept = new Uint8Array(2 * KEY_BYTES + challenge.userData.length);
    kept.set(handshake.sendKey, 0);
    kept.set(handshake.receiveKey, KEY_BYTES);
    kept.set(challenge.userData, 2 * KEY_BYTES);
    slot.sendKey = kept.subarray(0, KEY_BYTES);
    slot.receiveKey = kept.subarray(KEY_BYTES, 2 * KEY_BYTES);
    slot.sequence = 0;
    slot.timeout = handshake.timeout;
    slot.lastSend = this.time;
    slot.lastReceive = this.time;
    slot.userData = kept.subarray(2 * KEY_BYTES);
    slot.replay.reset();
    slot.endpoint = this.options.reliable === false ? null : this.createEndpoint(index);
    this.pending.delete(from);
    if (this.usedTokens.complete(handshake.token, from, handshake.tokenExpires, this.time))
      this.counters.usedTokensEvicted++;
    this.byAddress.set(from, index);
    this.numConnected++;
    this.sendKeepAlive(index);
    this.options.onConnect?.(index, slot.clientId, slot.userData);
  }

  private createEndpoint(index: number): ReliableEndpoint<unknown> {
    const o = this.options;
    // Checked once, and shared by every client's endpoint.
    this.reliable ??= reliableConfig(o.reliable === false ? {} : o.reliable);
    const config = this.reliable;
    this.transmitBuffer ??= new Uint8Array(transmitBufferBytes(config));
    return new ReliableEndpoint<unknown>(
      new SlotHandler(index, this.sendPayloadTo, o),
      config,
      this.time,
      this.transmitBuffer,
    );
  }

  /** sendPayload bound once, for every client's SlotHandler. */
  private readonly sendPayloadTo = (index: number, data: Uint8Array, length: number): void =>
    this.sendPayload(index, data, length);

  private sendPayload(index: number, data: Uint8Array, length: number): void {
    const slot = this.slots[index];
    if (!slot.connected) return;
    // Until the client has answered, each payload is preceded by a keep-alive that tells it its slot.
    if (!slot.confirmed) this.sendKeepAlive(index);
    const n = this.codec.writePayload(this.buffer, slot.sequence++, slot.sendKey, data, 0, length);
    this.options.transports[slot.transport].send(slot.address, this.buffer.subarray(0, n));
    slot.lastSend = this.time;
  }

  private sendKeepAlive(index: number): void {
    const slot = this.slots[index];
    const n = this.codec.writeKeepAlive(this.buffer, slot.sequence++, slot.sendKey, index, this.maxClients);
    this.options.transports[slot.transport].send(slot.address, this.buffer.subarray(0, n));
    slot.lastSend = this.time;
  }

  private sendGlobal(
    transport: number,
    to: Address,
    key: Uint8Array,
    write: (out: Uint8Array, sequence: bigint, key: Uint8Array) => number,
  ): void {
    const n = write(this.buffer, this.globalSequence++, key);
    this.options.transports[transport].send(to, this.buffer.subarray(0, n));
  }

  private findClient(clientId: bigint): number {
    for (let i = 0; i < this.maxClients; i++)
      if (this.slots[i].connected && this.slots[i].clientId === clientId) return i;
    return -1;
  }

  private disconnectSlot(index: number, reason: ServerDisconnectReason, notify: boolean): void {
    const slot = this.slots[index];
    if (notify) {
      for (let i = 0; i < NUM_DISCONNECT_PACKETS; i++) {
        const n = this.codec.writeDisconnect(this.buffer, slot.sequence++, slot.sendKey);
        this.options.transports[slot.transport].send(slot.address, this.buffer.subarray(0, n));
      }
    }
    slot.connected = false;
    slot.endpoint = null;
    // A free slot holds nothing of the client that left.
    slot.sendKey = slot.receiveKey = NO_KEY;
    slot.userData = NO_USER_DATA;
    this.byAddress.delete(slot.address);
    this.numConnected--;
    this.options.onDisconnect?.(index, slot.clientId, reason);
  }
}
