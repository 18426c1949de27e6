/** The netcode fuzz's per-reader checks and accounting: captures, reader verdicts, per-tick and final checks. */

import { ClientState } from '../../src/connection/client.js';
import { MAX_PACKET_BYTES, PacketType } from '../../src/connection/constants.js';
import { randomInt } from '../../src/random/prng.js';
import type { Address, DatagramHandler } from '../../src/transport/index.js';
import { hex } from '../fuzz-core.js';
import {
  ACCEPTED_COUNTER,
  CAPTURE_SLOTS,
  type ClientInternals,
  COUNTER_KEYS,
  KIND_NAMES,
  NETCODE_CHECKS,
  NETCODE_READERS,
  NOT_READ,
  OP_NAMES,
  PACKET_NAMES,
  PAIR_SLOTS,
  PINNED_SLOTS,
  REAL,
  REAL_ADDRESS,
  REAL_ID,
  RECORD_RING,
  REPLAY,
  SERVER_ADDRESS,
} from './options.js';
import type { Tap } from './parts.js';
import { NetcodeFuzzWorld } from './world.js';

/** Captures, the per-reader accounting and the checks. */
export abstract class NetcodeFuzzAccounting extends NetcodeFuzzWorld {
  // -------------------------------------------------------------------------------------------
  // Captures and accounting
  // -------------------------------------------------------------------------------------------

  /** A real datagram leaves `tap`: capture it, send it, tag it at the server or the real client. */
  onSend(tap: Tap, to: Address, data: Uint8Array): void {
    this.capture(tap, data);
    const dest = to === SERVER_ADDRESS ? this.serverTap : to === REAL_ADDRESS ? this.real?.tap : undefined;
    const dropped = dest === undefined ? 0 : dest.inner.stats().dropped;
    tap.inner.send(to, data);
    if (dest !== undefined && !dest.closed) this.tagged(dest, dropped, tap.sendTag);
  }

  protected tagged(dest: Tap, dropped: number, tag: number): void {
    if (dest.inner.stats().dropped !== dropped) {
      this.stats.queueDrops++;
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.noQueueDrops, `a datagram to ${dest.localAddress} was dropped`);
    } else if (!dest.tags!.push(tag)) {
      this.fail(NETCODE_CHECKS.harness, 'tag ring full');
    }
  }

  protected capture(tap: Tap, data: Uint8Array): void {
    const length = data.length;
    if (length < 1 || length > MAX_PACKET_BYTES) return;
    const type = data[0] & 0xf;
    if (type > PacketType.Disconnect) return;
    const role = tap.role;
    if (type === PacketType.ConnectionRequest && tap.party !== null) tap.party.lastRequest = data.slice();
    if (type === PacketType.ConnectionResponse && tap.party?.lastRequest) {
      const pair = { request: tap.party.lastRequest, response: data.slice() };
      if (this.pairs.length < PAIR_SLOTS) this.pairs.push(pair);
      else this.pairs[this.pairCount % PAIR_SLOTS] = pair;
      this.pairCount++;
      tap.party.lastRequest = null;
    }
    const n = this.captured[type]++;
    let slot = n;
    if (n >= CAPTURE_SLOTS) {
      if (this.captureRng() >= 0.1) return;
      slot = PINNED_SLOTS + randomInt(this.captureRng, CAPTURE_SLOTS - PINNED_SLOTS);
    }
    this.captures[type][slot].set(data);
    this.captureLengths[type][slot] = length;
    this.captureRoles[type][slot] = role;
  }

  /** A datagram reaches `tap`'s owner through `handler`. */
  onReceive(tap: Tap, handler: DatagramHandler, from: Address, data: Uint8Array): void {
    if (tap === this.serverTap) this.serverDatagram(handler, from, data);
    else if (this.real !== null && tap === this.real.tap) this.clientDatagram(handler, from, data);
    else handler(from, data);
  }

  protected deliver(handler: DatagramHandler, from: Address, data: Uint8Array, tag: number): void {
    try {
      handler(from, data);
    } catch (error) {
      this.crashTag = tag;
      this.crashHex = hex(data);
      throw error;
    }
  }

  protected tagOf(tap: Tap): number {
    const tag = tap.tags!.shift();
    if (Number.isNaN(tag)) {
      this.report.semanticChecks++;
      this.fail(NETCODE_CHECKS.harness, `an untagged datagram at ${tap.localAddress}`);
      return REAL;
    }
    return tag;
  }

  protected serverDatagram(handler: DatagramHandler, from: Address, data: Uint8Array): void {
    const tag = this.tagOf(this.serverTap);
    const counters = this.server.stats();
    const before = this.before;
    for (let k = 0; k < COUNTER_KEYS.length; k++) before[k] = counters[COUNTER_KEYS[k]];
    const view = this.internals.view;
    view.reason = NOT_READ;
    const connects = this.connectCount;
    // A connection made without a handshake, looked up first: a disconnect through it ends it.
    const slot = this.internals.byAddress.get(from);
    const ghost = slot !== undefined && this.slots[slot] === 'ghost' ? this.ghostCheck[slot] : null;
    this.failureInput = data;
    this.failureTag = tag;
    this.deliver(handler, from, data, tag);

    let moved = -1;
    let movedCount = 0;
    let overcounted = false;
    for (let k = 0; k < COUNTER_KEYS.length; k++) {
      const d = counters[COUNTER_KEYS[k]] - before[k];
      if (d === 0) continue;
      movedCount++;
      moved = k;
      if (d !== 1) overcounted = true;
    }
    let accepted = false;
    let reason = '';
    let acceptedType = -1;
    let counted = movedCount === 1 && !overcounted;
    let countedCheck: string = NETCODE_CHECKS.counted;
    if (movedCount === 0) {
      if (
        view.reason === '' &&
        (view.type !== PacketType.ConnectionResponse || this.connectCount > connects)
      ) {
        accepted = true;
        acceptedType = view.type;
      } else {
        counted = false;
        if (view.reason === '') countedCheck = NETCODE_CHECKS.countedResponse;
        reason =
          view.reason === NOT_READ
            ? 'not read, not counted'
            : view.reason === ''
              ? 'a response whose client is connected already, not counted'
              : `${view.reason}, not counted`;
      }
    } else if (counted && moved === ACCEPTED_COUNTER) {
      accepted = true;
      acceptedType = PacketType.ConnectionRequest;
    } else if (counted) {
      reason = COUNTER_KEYS[moved];
      if (moved === COUNTER_KEYS.indexOf('rejectedPackets'))
        reason += view.reason === NOT_READ ? ': length out of range' : `: ${view.reason}`;
      else if (moved === COUNTER_KEYS.indexOf('responsesInvalid'))
        reason += view.reason === '' ? ': challenge token does not open' : `: ${view.reason}`;
    }
    this.report.semanticChecks++;
    if (!counted && !accepted)
      this.fail(
        countedCheck,
        `${movedCount} counters moved (${COUNTER_KEYS.filter((key, k) => counters[key] !== before[k]).join(', ')}) for a ${data.length}-byte datagram from ${from}: ${reason}`,
      );

    if (tag >= 0) {
      this.judge(tag, accepted, acceptedType, reason, 'server', ghost);
    } else if (tag === REAL) {
      this.stats.realToServer++;
      if (this.main && this.real !== null && from === REAL_ADDRESS)
        this.check(accepted, NETCODE_CHECKS.realAccepted, () => `the server refused it: ${reason}`);
    }
    this.failureTag = -1;
  }

  protected clientDatagram(handler: DatagramHandler, from: Address, data: Uint8Array): void {
    const real = this.real!;
    const tag = this.tagOf(real.tap);
    const view = (real.client as unknown as ClientInternals).view;
    view.reason = NOT_READ;
    this.failureInput = data;
    this.failureTag = tag;
    this.deliver(handler, from, data, tag);
    const accepted = view.reason === '';
    let reason = view.reason;
    if (reason === NOT_READ) {
      reason =
        from !== SERVER_ADDRESS
          ? 'not from the server address'
          : data.length < 1 || data.length > MAX_PACKET_BYTES
            ? 'length out of range'
            : 'not read';
    }
    if (tag >= 0) {
      this.judge(tag, accepted, accepted ? view.type : -1, reason, 'client', null);
    } else if (tag === REAL) {
      this.stats.realToClient++;
      if (this.main)
        this.check(accepted, NETCODE_CHECKS.realAccepted, () => `the real client refused it: ${reason}`);
    }
    this.failureTag = -1;
  }

  /** The verdict on an injected input: counted for its reader, and checked against what it is. */
  protected judge(
    tag: number,
    accepted: boolean,
    acceptedType: number,
    reason: string,
    where: string,
    ghost: string | null,
  ): void {
    const r = tag % RECORD_RING;
    const kind = this.recKind[r];
    const reader = this.recReader[r];
    this.outcome(reader, kind, accepted, reason);
    this.report.semanticChecks++;
    if (!accepted) return;
    const what = () =>
      `the ${where} accepted a ${PACKET_NAMES[acceptedType] ?? 'packet'} (${KIND_NAMES[kind]}, ${OP_NAMES[this.recOp[r]]}, from ${this.recType[r] < 0 ? 'nothing' : `a ${PACKET_NAMES[this.recType[r]]}`}, reader ${NETCODE_READERS[reader]}, input ${tag})`;
    // Through a connection made without a handshake, replays of that client's packets open: a
    // consequence of that connect, reported with it.
    if (ghost !== null) {
      if (acceptedType >= PacketType.KeepAlive) this.fail(ghost, `then ${what()} through it`);
    } else if (kind !== REPLAY) this.fail(NETCODE_CHECKS.forged, what());
    else if (acceptedType >= PacketType.KeepAlive) this.fail(NETCODE_CHECKS.replayed, what());
  }

  protected checkTick(): void {
    const real = this.real!;
    const server = this.server;
    const ok =
      real.client.state === ClientState.Connected &&
      real.client.clientIndex === this.realIndex &&
      server.isConnected(this.realIndex) &&
      server.clientId(this.realIndex) === REAL_ID &&
      this.slots[this.realIndex] === real;
    this.report.semanticChecks++;
    if (!ok && !this.realLost) {
      this.realLost = true;
      this.fail(
        NETCODE_CHECKS.realConnected,
        `client state ${real.client.state}, index ${real.client.clientIndex}; server slot ${this.realIndex} ${server.isConnected(this.realIndex) ? `holds client ${server.clientId(this.realIndex)}` : 'is free'}`,
      );
    }
    let tracked = 0;
    for (const slot of this.slots) if (slot !== null) tracked++;
    const internals = this.internals;
    this.check(
      server.connectedClients === tracked && internals.byAddress.size === server.connectedClients,
      NETCODE_CHECKS.connectedCount,
      () =>
        `connectedClients ${server.connectedClients}, connections seen ${tracked}, byAddress ${internals.byAddress.size}`,
    );
    const pending = internals.pending.size;
    const tokens = internals.usedTokens.size;
    if (pending > this.stats.peakPending) this.stats.peakPending = pending;
    if (tokens > this.stats.peakTokensUsed) this.stats.peakTokensUsed = tokens;
    this.check(
      pending <= internals.pending.capacity && tokens <= internals.usedTokens.capacity,
      NETCODE_CHECKS.mapsBounded,
      () =>
        `pending handshakes ${pending} (max ${internals.pending.capacity}), used tokens ${tokens} (max ${internals.usedTokens.capacity})`,
    );
    if ((this.tick & 15) === 0) {
      let never = 0;
      for (const [address, m] of internals.pending.entries()) {
        if (m.timeout > 0 || m.expireTime >= 0) continue;
        never++;
        if (!this.reportedStuck.has(address) && this.reportedStuck.size < 1024) {
          this.reportedStuck.add(address);
          this.report.semanticChecks++;
          this.fail(
            NETCODE_CHECKS.mappingsExpire,
            `the mapping for ${address} has timeout ${m.timeout} and expire time ${m.expireTime}: it never expires`,
          );
        }
      }
      if (never > this.stats.peakNeverExpiring) this.stats.peakNeverExpiring = never;
      const bytes = this.serverTap.inner.queueStorageBytes + real.tap.inner.queueStorageBytes;
      if (bytes > this.stats.peakQueueBytes) this.stats.peakQueueBytes = bytes;
    }
  }

  protected finish(): void {
    const real = this.real!;
    const report = this.report;
    for (const d of [real.up, real.down]) {
      this.check(
        d.delivered === d.sent,
        NETCODE_CHECKS.allDelivered,
        () => `${d.name}: ${d.delivered} of ${d.sent} received`,
      );
    }
    const read = report.readerInputs.reduce((a, b) => a + b, 0);
    this.check(
      read === report.iterations,
      NETCODE_CHECKS.everyInputRead,
      () => `${read} of ${report.iterations} inputs read`,
    );
  }
}
