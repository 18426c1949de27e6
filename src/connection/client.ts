import type { ReliableConfig } from '../packet/config.js';
import { ReliableEndpoint } from '../packet/reliable-endpoint.js';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import type { Address } from '../transport/address.js';
import type { DatagramTransport } from '../transport/transport.js';
import { type Aead, defaultAead } from './aead.js';
import { type ConnectToken, readConnectToken } from './connect-token.js';
import {
  CHALLENGE_TOKEN_BYTES,
  MAX_PACKET_BYTES,
  NUM_DISCONNECT_PACKETS,
  PACKET_SEND_RATE,
  PacketType,
} from './constants.js';
import { PacketCodec, packetView, typeMask } from './packets.js';
import { ReplayProtection } from './replay-protection.js';

/**
 * The client's states, with netcode's numbers: negative ones are errors (the connection ended
 * and why), 0 is disconnected, positive ones are on the way to or in a connection.
 */
export const ClientState = {
  ConnectTokenExpired: -6,
  InvalidConnectToken: -5,
  ConnectionTimedOut: -4,
  ConnectionResponseTimedOut: -3,
  ConnectionRequestTimedOut: -2,
  ConnectionDenied: -1,
  Disconnected: 0,
  SendingConnectionRequest: 1,
  SendingConnectionResponse: 2,
  Connected: 3,
} as const;
export type ClientState = (typeof ClientState)[keyof typeof ClientState];

/** A state as words a user can act on. */
export function describeClientState(state: ClientState): string {
  switch (state) {
    case ClientState.ConnectTokenExpired:
      return 'connect token expired: ask the backend for a new one';
    case ClientState.InvalidConnectToken:
      return 'invalid connect token';
    case ClientState.ConnectionTimedOut:
      return 'connection timed out';
    case ClientState.ConnectionResponseTimedOut:
      return 'connection response timed out';
    case ClientState.ConnectionRequestTimedOut:
      return 'connection request timed out: no server answered';
    case ClientState.ConnectionDenied:
      return 'denied: server full';
    case ClientState.Disconnected:
      return 'disconnected';
    case ClientState.SendingConnectionRequest:
      return 'sending connection request';
    case ClientState.SendingConnectionResponse:
      return 'sending connection response';
    default:
      return 'connected';
  }
}

export interface ClientOptions {
  transport: DatagramTransport;
  aead?: Aead;
  /** Configuration of the connection's ReliableEndpoint; `false` carries raw netcode payloads (see ServerOptions). */
  reliable?: Partial<ReliableConfig> | false;
  /** Datagrams taken from the transport per update (default 256). */
  maxDatagramsPerUpdate?: number;
  onStateChange?(state: ClientState, previous: ClientState): void;
  /** A packet from the server: data[offset, offset + length), valid during the call. */
  /** Returning exactly false refuses the packet: it is then not acked. */
  onPacket?(data: Uint8Array, offset: number, length: number): unknown;
  onAcked?(sequence: number, record: unknown): void;
  onLost?(sequence: number, record: unknown): void;
}

const FROM_SERVER = typeMask(
  PacketType.ConnectionDenied,
  PacketType.ConnectionChallenge,
  PacketType.KeepAlive,
  PacketType.Payload,
  PacketType.Disconnect,
);

/**
 * A netcode 1.02 client: connects with a connect token, trying each server address in it in
 * turn, then carries a ReliableEndpoint inside payload packets. A pure state machine over a
 * transport: drive it with `update(now)`, `now` in seconds.
 */
export class Client {
  private stateValue: ClientState = ClientState.Disconnected;
  private token: ConnectToken | null = null;
  private codec: PacketCodec | null = null;
  private serverIndex = 0;
  private sequence = 0;
  private time = 0;
  private lastUpdate = NO_TIME_YET;
  private connectStart = 0;
  private lastSend = Number.NEGATIVE_INFINITY;
  private lastReceive = 0;
  private pendingError: ClientState | null = null;
  private challengeSequence = 0;
  private readonly challengeToken = new Uint8Array(CHALLENGE_TOKEN_BYTES);
  private readonly replay = new ReplayProtection();
  private readonly buffer = new Uint8Array(MAX_PACKET_BYTES + 64);
  private readonly scratch = new Uint8Array(MAX_PACKET_BYTES + 64);
  private readonly view = packetView();
  private readonly aead: Aead;
  /** Slot index and server capacity, once connected. */
  clientIndex = -1;
  maxClients = 0;
  endpointValue: ReliableEndpoint<unknown> | null = null;

  constructor(private readonly options: ClientOptions) {
    this.aead = options.aead ?? defaultAead();
  }

  get state(): ClientState {
    return this.stateValue;
  }

  /** The server being connected to (or connected), or null. */
  get serverAddress(): Address | null {
    return this.token === null ? null : this.token.serverAddresses[this.serverIndex];
  }

  /** The connection's ReliableEndpoint (RTT, loss, bandwidth, counters); null when not connected. */
  get endpoint(): ReliableEndpoint<unknown> | null {
    return this.endpointValue;
  }

  /** Starts connecting with a 2048-byte connect token. */
  connect(tokenBytes: Uint8Array, now: number): void {
    checkTime('Client.connect', now, this.lastUpdate);
    if (this.stateValue > ClientState.Disconnected) this.disconnect();
    this.lastUpdate = this.time = now;
    const read = readConnectToken(tokenBytes);
    if (!read.ok) {
      this.setState(ClientState.InvalidConnectToken);
      return;
    }
    this.token = read.token;
    this.codec = new PacketCodec(read.token.protocolId, this.aead);
    this.serverIndex = 0;
    this.connectStart = now;
    this.beginServer();
  }

  private beginServer(): void {
    this.sequence = 0;
    this.lastSend = Number.NEGATIVE_INFINITY;
    this.lastReceive = this.time;
    this.pendingError = null;
    this.replay.reset();
    this.endpointValue = null;
    this.setState(ClientState.SendingConnectionRequest);
  }

  /** Sends data[0, length) to the server through the ReliableEndpoint; throws unless connected. */
  send(data: Uint8Array, length = data.length, record?: unknown): number {
    if (this.stateValue !== ClientState.Connected) {
      throw new Error(`Client.send: not connected (${describeClientState(this.stateValue)})`);
    }
    if (this.endpointValue !== null) return this.endpointValue.sendPacket(data, length, record);
    const sequence = this.sequence;
    this.sendPacket((out, s, k) => this.codec!.writePayload(out, s, k, data, 0, length));
    return sequence;
  }

  /** Disconnects cleanly: ten disconnect packets, then Disconnected. */
  disconnect(): void {
    if (this.stateValue === ClientState.Connected) {
      for (let i = 0; i < NUM_DISCONNECT_PACKETS; i++)
        this.sendPacket((out, s, k) => this.codec!.writeDisconnect(out, s, k));
    }
    this.end(ClientState.Disconnected);
  }

  update(now: number): void {
    this.lastUpdate = this.time = checkTime('Client.update', now, this.lastUpdate);
    if (this.stateValue <= ClientState.Disconnected) return;
    const transport = this.options.transport;
    // The endpoint reads `now` before this tick's datagrams arrive: acks in them are timed now.
    this.endpointValue?.advanceTime(now);
    transport.update(now);
    transport.receive((from, data) => this.receive(from, data), this.options.maxDatagramsPerUpdate ?? 256);
    if (this.stateValue <= ClientState.Disconnected) return;
    const token = this.token!;
    if (
      this.stateValue < ClientState.Connected &&
      now - this.connectStart >= token.expireTimestamp - token.createTimestamp
    ) {
      this.end(ClientState.ConnectTokenExpired);
      return;
    }
    if (this.pendingError !== null) {
      this.next(this.pendingError);
      return;
    }
    const timedOut = token.timeoutSeconds > 0 && this.lastReceive + token.timeoutSeconds < now;
    switch (this.stateValue) {
      case ClientState.SendingConnectionRequest:
        if (timedOut) {
          this.next(ClientState.ConnectionRequestTimedOut);
          return;
        }
        if (this.lastSend + 1 / PACKET_SEND_RATE < now) {
          this.sendPacket((out) =>
            this.codec!.writeConnectionRequest(out, token.expireTimestamp, token.nonce, token.privateData),
          );
        }
        break;
      case ClientState.SendingConnectionResponse:
        if (timedOut) {
          this.next(ClientState.ConnectionResponseTimedOut);
          return;
        }
        if (this.lastSend + 1 / PACKET_SEND_RATE < now) {
          this.sendPacket((out, s, k) =>
            this.codec!.writeChallengeOrResponse(
              out,
              PacketType.ConnectionResponse,
              s,
              k,
              this.challengeSequence,
              this.challengeToken,
            ),
          );
        }
        break;
      case ClientState.Connected:
        if (timedOut) {
          this.end(ClientState.ConnectionTimedOut);
          return;
        }
        this.endpointValue?.update(now);
        if (this.stateValue === ClientState.Connected && this.lastSend + 1 / PACKET_SEND_RATE < now) {
          this.sendPacket((out, s, k) => this.codec!.writeKeepAlive(out, s, k, 0, 0));
        }
        break;
    }
  }

  /** Moves to the next server in the token, or ends with `error` when there is none. */
  private next(error: ClientState): void {
    if (this.serverIndex + 1 < this.token!.serverAddresses.length) {
      this.serverIndex++;
      this.beginServer();
    } else this.end(error);
  }

  private receive(from: Address, data: Uint8Array): void {
    if (this.stateValue <= ClientState.Disconnected || from !== this.serverAddress) return;
    const length = data.length;
    if (length < 1 || length > MAX_PACKET_BYTES) return;
    const packet = this.scratch;
    packet.set(data);
    const view = this.view;
    if (
      !this.codec!.readEncrypted(
        packet,
        length,
        this.token!.serverToClientKey,
        FROM_SERVER,
        view,
        this.replay,
      )
    )
      return;
    switch (view.type) {
      case PacketType.ConnectionDenied:
        if (
          this.stateValue === ClientState.SendingConnectionRequest ||
          this.stateValue === ClientState.SendingConnectionResponse
        ) {
          this.pendingError = ClientState.ConnectionDenied;
          this.lastReceive = this.time;
        }
        return;
      case PacketType.ConnectionChallenge:
        if (this.stateValue !== ClientState.SendingConnectionRequest) return;
        this.challengeSequence = view.challengeSequence;
        this.challengeToken.set(
          packet.subarray(view.challengeTokenOffset, view.challengeTokenOffset + CHALLENGE_TOKEN_BYTES),
        );
        this.lastReceive = this.time;
        this.lastSend = Number.NEGATIVE_INFINITY; // answer at once
        this.setState(ClientState.SendingConnectionResponse);
        return;
      case PacketType.KeepAlive:
        if (this.stateValue === ClientState.SendingConnectionResponse) {
          this.clientIndex = view.clientIndex;
          this.maxClients = view.maxClients;
          this.lastReceive = this.time;
          this.endpointValue = this.options.reliable === false ? null : this.createEndpoint();
          this.setState(ClientState.Connected);
        } else if (this.stateValue === ClientState.Connected) this.lastReceive = this.time;
        return;
      case PacketType.Payload:
        if (this.stateValue !== ClientState.Connected) return;
        this.lastReceive = this.time;
        if (this.endpointValue !== null)
          this.endpointValue.receivePacket(packet, view.payloadOffset, view.payloadLength);
        else this.options.onPacket?.(packet, view.payloadOffset, view.payloadLength);
        return;
      case PacketType.Disconnect:
        if (this.stateValue === ClientState.Connected) this.end(ClientState.Disconnected);
        return;
    }
  }

  private createEndpoint(): ReliableEndpoint<unknown> {
    const o = this.options;
    return new ReliableEndpoint<unknown>(
      {
        transmit: (_sequence, data, length) =>
          this.sendPacket((out, s, k) => this.codec!.writePayload(out, s, k, data, 0, length)),
        process: (_sequence, data, offset, length) => {
          return o.onPacket?.(data, offset, length) !== false;
        },
        onAcked: (sequence, record) => o.onAcked?.(sequence, record),
        onLost: (sequence, record) => o.onLost?.(sequence, record),
      },
      o.reliable === false ? {} : o.reliable,
      this.time,
    );
  }

  private sendPacket(write: (out: Uint8Array, sequence: number, key: Uint8Array) => number): void {
    const n = write(this.buffer, this.sequence++, this.token!.clientToServerKey);
    this.options.transport.send(this.serverAddress!, this.buffer.subarray(0, n));
    this.lastSend = this.time;
  }

  private end(state: ClientState): void {
    this.endpointValue = null;
    this.clientIndex = -1;
    this.setState(state);
  }

  private setState(state: ClientState): void {
    const previous = this.stateValue;
    if (previous === state) return;
    this.stateValue = state;
    this.options.onStateChange?.(state, previous);
  }
}
