/** The netcode fuzz's loop: ticks, the prologue, companions coming and going, the run and its result. */

import { ClientState, describeClientState } from '../../src/connection/client.js';
import { randomInt } from '../../src/random/prng.js';
import { ReaderCrash, runMeter } from '../fuzz-core.js';
import { NetcodeFuzzInputs } from './inputs.js';
import {
  COMPANIONS,
  FILLER_ID,
  KIND_NAMES,
  MAX_CLIENTS,
  NETCODE_CHECKS,
  NETCODE_READERS,
  NETCODE_TARGET,
  OP_NAMES,
  RANDOM,
  REAL_ADDRESS,
  REAL_ID,
  RECORD_RING,
  ROLE_COMPANION,
  ROLE_REAL,
  STREAM_REAL_UP,
  TICK_SECONDS,
} from './options.js';
import {
  END_DISCONNECT,
  END_KICK,
  type NetcodeFuzzReport,
  type NetcodeFuzzStats,
  type Party,
  TagRing,
} from './parts.js';

/** One run; `run()` once. */
export class NetcodeFuzz extends NetcodeFuzzInputs {
  // -------------------------------------------------------------------------------------------
  // The loop
  // -------------------------------------------------------------------------------------------

  protected updateAll(): void {
    const now = this.now;
    try {
      this.server.update(now);
    } catch (error) {
      throw new ReaderCrash('Server.update', error);
    }
    if (this.real !== null) {
      try {
        this.real.client.update(now);
      } catch (error) {
        throw new ReaderCrash('Client.update (the real client)', error);
      }
    }
    for (const party of this.companions) {
      if (party !== null && !party.silent && !party.tap.closed) party.client.update(now);
    }
    if (this.filler !== null && !this.filler.tap.closed) this.filler.client.update(now);
    for (const attacker of this.attackers) attacker.receive(() => {}, 4096);
  }

  protected advance(): void {
    this.tick++;
    this.now = this.tick * TICK_SECONDS;
  }

  /** Runs ticks until `done()` or `ticks` have passed; throws naming `what` when it never is. */
  protected until(what: string, ticks: number, done: () => boolean): void {
    for (let i = 0; i < ticks; i++) {
      this.advance();
      this.updateAll();
      if (done()) return;
    }
    throw new Error(`netcode fuzz: prologue: ${what} did not happen in ${ticks} ticks`);
  }

  /**
   * The prologue: the companions and a filler fill the server; the real client is denied (its
   * denied packet is captured), the filler leaves, and the real client connects with the same token.
   */
  protected prologue(): void {
    for (let k = 0; k < COMPANIONS; k++) this.startCompanion(k);
    const filler = this.startParty(ROLE_COMPANION, 'filler', FILLER_ID, '10.0.2.1:40000', 8);
    this.filler = filler;
    this.until('the server filling up', 120, () => this.server.connectedClients === MAX_CLIENTS);
    const real = this.startParty(ROLE_REAL, 'the real client', REAL_ID, REAL_ADDRESS, STREAM_REAL_UP);
    this.real = real;
    real.tap.tags = new TagRing();
    this.until('the real client being denied', 120, () => real.client.state === ClientState.ConnectionDenied);
    filler.client.disconnect();
    this.finishParty(filler);
    this.filler = null;
    this.until('the filler leaving', 30, () => this.server.connectedClients === MAX_CLIENTS - 1);
    // The same token again: denied before, accepted now there is room.
    real.client.connect(real.tokenBytes, this.now);
    this.until('the real client connecting', 120, () => real.client.state === ClientState.Connected);
    this.realIndex = real.serverIndex;
    if (this.realIndex < 0 || real.client.clientIndex !== this.realIndex)
      throw new Error('netcode fuzz: prologue: the real client has no slot');
  }

  protected companionTick(k: number): void {
    const party = this.companions[k];
    const rng = this.rng;
    if (party === null) {
      if (this.tick >= this.companionNext[k]) this.startCompanion(k);
      return;
    }
    const state = party.client.state;
    const restart = (end: number) => {
      if (end >= 0) this.stats.companionEnds[end]++;
      this.finishParty(party);
      this.companions[k] = null;
      this.companionNext[k] = this.tick + 6 + randomInt(rng, 60);
    };
    if (party.silent) {
      if (party.serverIndex < 0 || this.tick > party.endTick + 600) restart(-1);
      return;
    }
    if (state === ClientState.ConnectionDenied) {
      restart(3);
      return;
    }
    if (state <= ClientState.Disconnected) {
      if (
        state === ClientState.ConnectionRequestTimedOut ||
        state === ClientState.ConnectionResponseTimedOut ||
        state === ClientState.ConnectTokenExpired
      )
        this.notJoined(party, describeClientState(state));
      // Kicked (counted by onDisconnect), or it ended some other way.
      restart(party.serverIndex < 0 && state === ClientState.Disconnected ? -1 : 4);
      return;
    }
    if (state !== ClientState.Connected) {
      if (this.tick - party.startTick > 600) {
        this.notJoined(party, `still ${describeClientState(state)} after 600 ticks`);
        restart(4);
      }
      return;
    }
    if (party.serverIndex >= 0) {
      if (rng() < 0.3) this.sendUp(party);
      if (rng() < 0.3) this.sendDown(party);
    }
    if (this.tick < party.endTick) return;
    if (party.endMode === END_DISCONNECT) {
      party.client.disconnect();
      restart(-1);
    } else if (party.endMode === END_KICK) {
      if (party.serverIndex >= 0) this.server.disconnect(party.serverIndex);
    } else party.silent = true;
  }

  protected notJoined(party: Party, how: string): void {
    this.report.semanticChecks++;
    this.fail(
      NETCODE_CHECKS.joinable,
      `${party.name} (client ${party.clientId}, from tick ${party.startTick}): ${how}; server counters ${JSON.stringify(this.server.stats())}`,
    );
  }

  protected step(inject: boolean): void {
    this.advance();
    const rng = this.rng;
    const real = this.real!;
    if (inject) {
      if (real.client.state === ClientState.Connected && rng() < 0.8) this.sendUp(real);
      if (this.server.isConnected(this.realIndex) && this.slots[this.realIndex] === real && rng() < 0.8)
        this.sendDown(real);
      for (let k = 0; k < COMPANIONS; k++) this.companionTick(k);
      let halfOpens = Math.floor(this.halfOpenChance);
      if (rng() < this.halfOpenChance - halfOpens) halfOpens++;
      for (let i = 0; i < halfOpens; i++) this.halfOpen();
      const remaining = () => this.options.datagrams - this.report.iterations;
      if (remaining() > 0) this.duePendingResponses(remaining());
      if (remaining() > 0 && rng() < this.handshakeChance) this.replayHandshake();
      if (this.options.forgeWithRealKey === true && remaining() > 0 && rng() < 0.1) this.forgeWithRealKey();
      const count = Math.min(this.injectionsPerTick, remaining());
      for (let i = 0; i < count; i++) this.injectOne();
    }
    this.updateAll();
    this.checkTick();
  }

  run(): Omit<NetcodeFuzzReport, 'stats'> {
    const options = this.options;
    const report = this.report;
    const meter = runMeter(report, options.datagrams, options);
    try {
      this.prologue();
      this.main = true;
      while (report.iterations < options.datagrams) {
        this.step(true);
        if ((this.tick & 15) === 0) meter.update(report.iterations);
      }
      // Drain: no more sends or injections; every payload in flight arrives, every input is read.
      for (let i = 0; i < 90; i++) this.step(false);
      this.finish();
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      const tag = this.crashTag;
      const r = Number.isNaN(tag) || tag < 0 ? -1 : tag % RECORD_RING;
      report.crash = {
        target: NETCODE_TARGET,
        reader: crash.reader,
        seed: report.seed,
        iteration: r < 0 ? Math.max(0, report.iterations - 1) : tag,
        mutated: r < 0 || this.recKind[r] !== RANDOM,
        inputHex: this.crashHex,
        error: `${crash.message}\n(${
          r < 0
            ? Number.isNaN(tag)
              ? 'not while reading a datagram'
              : 'while reading a real datagram'
            : `input ${tag}: ${KIND_NAMES[this.recKind[r]]}, ${OP_NAMES[this.recOp[r]]}, reader ${NETCODE_READERS[this.recReader[r]]}`
        }, tick ${this.tick})`,
      };
    }
    meter.finish();
    return report;
  }

  get result(): NetcodeFuzzStats {
    const s = this.stats;
    const real = this.real;
    const byOp: [string, number][] = [];
    s.byOp.forEach((count, k) => {
      if (count > 0) byOp.push([OP_NAMES[k], count]);
    });
    return {
      ticks: this.tick,
      simulatedSeconds: this.now,
      realToServer: s.realToServer,
      realToClient: s.realToClient,
      halfOpen: [...s.halfOpen],
      byKind: [...s.byKind],
      byOp,
      byBaseType: [...s.byBaseType],
      handshakeReplays: s.handshakeReplays,
      captured: [...this.captured],
      realConnectedThroughout: real !== null && !this.realLost,
      realUp: { sent: real?.up.sent ?? 0, delivered: real?.up.delivered ?? 0 },
      realDown: { sent: real?.down.sent ?? 0, delivered: real?.down.delivered ?? 0 },
      companionConnections: this.companionConnections,
      companionConnects: s.companionConnects,
      companionEnds: [...s.companionEnds],
      serverCounters: { ...this.server.stats() },
      realConnects: s.realConnects,
      ghostConnects: s.ghostConnects,
      peakPending: s.peakPending,
      maxPending: this.internals.pending.capacity,
      peakTokensUsed: s.peakTokensUsed,
      maxTokensUsed: this.internals.usedTokens.capacity,
      peakNeverExpiring: s.peakNeverExpiring,
      peakQueueBytes: s.peakQueueBytes,
      queueDrops: s.queueDrops,
    };
  }
}
