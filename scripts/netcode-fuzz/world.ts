/** The netcode fuzz's simulated world: the real client, the companions, their tokens and payloads. */

import { Client, ClientState } from '../../src/connection/client.js';
import { generateConnectToken, readConnectToken } from '../../src/connection/connect-token.js';
import { randomBytes, randomInt } from '../../src/random/prng.js';
import type { Address } from '../../src/transport/index.js';
import { NETCODE_CHECKS, PROTOCOL_ID, REAL, REAL_ID, ROLE_COMPANION, SERVER_ADDRESS } from './options.js';
import { Deliveries, END_DISCONNECT, END_KICK, END_SILENT, type Party, Tap } from './parts.js';
import { NetcodeFuzzState } from './state.js';

/** Parties: tokens, clients, connects and disconnects, payloads both ways. */
export abstract class NetcodeFuzzWorld extends NetcodeFuzzState {
  // -------------------------------------------------------------------------------------------
  // Parties
  // -------------------------------------------------------------------------------------------

  protected token(
    clientId: bigint,
    extra: {
      serverAddresses?: Address[];
      protocolId?: bigint;
      privateKey?: Uint8Array;
      expireSeconds?: number;
      timeoutSeconds?: number;
    } = {},
  ): Uint8Array {
    return generateConnectToken({
      protocolId: extra.protocolId ?? PROTOCOL_ID,
      privateKey: extra.privateKey ?? this.privateKey(),
      clientId,
      serverAddresses: extra.serverAddresses ?? [SERVER_ADDRESS],
      now: this.unixNow(),
      expireSeconds: extra.expireSeconds ?? 30,
      timeoutSeconds: extra.timeoutSeconds ?? 5,
      aead: this.aead,
      randomBytes: (n) => randomBytes(this.tokenRng, n),
    });
  }

  protected startParty(
    role: number,
    name: string,
    clientId: bigint,
    address: string,
    streams: number,
  ): Party {
    const tap = new Tap(this.network.createTransport(address), role, REAL, this);
    const bytes = this.token(clientId);
    const read = readConnectToken(bytes);
    if (!read.ok) throw new Error(`netcode fuzz: a token of ours does not read: ${read.reason}`);
    let party: Party | null = null;
    const client = new Client({
      transport: tap,
      aead: this.aead,
      onPacket: (data, offset, length) => this.clientPayload(party!, data, offset, length),
    });
    const lifetime = 30 + randomInt(this.rng, 150);
    const mode = this.rng();
    party = {
      name,
      role,
      clientId,
      tap,
      client,
      token: read.token,
      tokenBytes: bytes,
      isCompanion: role === ROLE_COMPANION && name.startsWith('companion'),
      up: new Deliveries(`${name} -> server`, streams),
      down: new Deliveries(`server -> ${name}`, streams + 1),
      startTick: this.tick,
      endTick: this.tick + lifetime,
      endMode: mode < 0.45 ? END_DISCONNECT : mode < 0.9 ? END_KICK : END_SILENT,
      serverIndex: -1,
      silent: false,
      lastRequest: null,
    };
    tap.party = party;
    this.attempts.set(clientId, party);
    this.pastIds.set(clientId, tap.localAddress);
    if (this.pastIds.size > 256) this.pastIds.delete(this.pastIds.keys().next().value!);
    client.connect(bytes, this.now);
    return party;
  }

  protected finishParty(party: Party): void {
    this.attempts.delete(party.clientId);
    party.tap.close();
  }

  protected startCompanion(k: number): void {
    const c = this.companionConnections++;
    this.companions[k] = this.startParty(
      ROLE_COMPANION,
      `companion ${c}`,
      this.nextCompanionId++,
      '10.0.1.1:0',
      16 + 2 * c,
    );
  }

  protected onConnect(index: number, clientId: bigint): void {
    this.connectCount++;
    const address = this.server.clientAddress(index);
    const party = this.attempts.get(clientId);
    // The party's own handshake, or (still Connected on its side after the server dropped it) a
    // replay of its own earlier response from its own address while its token is valid: netcode
    // 1.02 connects that client again, with the token's keys, so it is the same real client
    // (GW_SEED=723632092 found one).
    if (
      party !== undefined &&
      party.tap.localAddress === address &&
      (party.client.state === ClientState.SendingConnectionResponse ||
        party.client.state === ClientState.Connected)
    ) {
      this.slots[index] = party;
      party.serverIndex = index;
      if (party.isCompanion) this.stats.companionConnects++;
      this.stats.realConnects++;
      return;
    }
    this.slots[index] = 'ghost';
    this.stats.ghostConnects++;
    const original = this.pastIds.get(clientId);
    this.report.semanticChecks++;
    this.ghostCheck[index] =
      original !== undefined && original !== address ? NETCODE_CHECKS.ghostReplay : NETCODE_CHECKS.ghost;
    if (original !== undefined && original !== address) {
      this.fail(
        NETCODE_CHECKS.ghostReplay,
        `client ${clientId} (which handshook from ${original}) connected at ${address}, slot ${index}`,
      );
    } else {
      this.fail(
        NETCODE_CHECKS.ghost,
        `client ${clientId} connected at ${address}, slot ${index}; ${party === undefined ? 'no such connection attempt' : `attempt from ${party.tap.localAddress} in state ${party.client.state}`}`,
      );
    }
  }

  protected onDisconnect(index: number, clientId: bigint, reason: string): void {
    const party = this.slots[index];
    this.slots[index] = null;
    if (clientId === REAL_ID && this.main) {
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.realConnected, `the server dropped the real client: ${reason}`);
      this.realLost = true;
    }
    if (party !== null && party !== 'ghost') {
      party.serverIndex = -1;
      if (party.isCompanion) {
        const end =
          reason === 'client disconnected' ? 0 : reason === 'kicked' ? 1 : reason === 'timed out' ? 2 : 4;
        this.stats.companionEnds[end]++;
      }
    }
  }

  protected serverPayload(index: number, data: Uint8Array, offset: number, length: number): void {
    const party = this.slots[index];
    this.report.semanticChecks++;
    if (party === 'ghost') {
      this.fail(this.ghostCheck[index], `then a payload through the connection in slot ${index}`);
      return;
    }
    if (party === null) {
      this.fail(NETCODE_CHECKS.forged, `a payload from slot ${index}, which no client holds`);
      return;
    }
    const problem = party.up.receive(this.pattern, data, offset, length);
    if (problem !== null) this.fail(problem[0], problem[1]);
  }

  protected clientPayload(party: Party, data: Uint8Array, offset: number, length: number): void {
    this.report.semanticChecks++;
    const problem = party.down.receive(this.pattern, data, offset, length);
    if (problem !== null) this.fail(problem[0], problem[1]);
  }

  protected sendUp(party: Party): void {
    const length = this.pattern.write(party.up.stream, party.up.next(), this.payload);
    party.client.send(this.payload, length);
  }

  protected sendDown(party: Party): void {
    const length = this.pattern.write(party.down.stream, party.down.next(), this.payload);
    this.server.send(party.serverIndex, this.payload, length);
  }
}
