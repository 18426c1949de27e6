/**
 * Zones in lockstep on one thread, for tests: every zone steps tick S, then the handoffs commit
 * to an embedded store, then every zone reads its inbox, and arrivals enter before S + 1. The
 * harness plays the gateway: it joins players at the spawn zone and sends each player's input
 * for S + 1 (one tick ahead, as a gateway does) to the zone its feeds last named as the host.
 * It audits ownership before every step.
 */
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import type { ZoneMap } from '../../src/zones/zone-map.js';
import type { EntityRecord, FeedBatch, GatewayBatch, ZoneInput } from '../../src/zones/zone-messages.js';
import { type ForwardedBatch, ZoneServer, type ZoneServerOptions } from '../../src/zones/zone-server.js';
import type { InboxEntry } from '../../src/zones/zone-store.js';
import { type ZoneCodecs, zoneCodecs } from '../../src/zones/zone-wire.js';

export interface LockstepOptions {
  map: ZoneMap;
  rules: (zone: number) => ZoneServerOptions['rules'];
  handoff?: ZoneServerOptions['handoff'];
  players: number[];
  input: (playerId: number, tick: number) => unknown;
}

const encode = (codecs: ZoneCodecs, record: EntityRecord) => codecs.encodeEntityRecord(record);
function decode(codecs: ZoneCodecs, bytes: Uint8Array): EntityRecord {
  const read = codecs.decodeEntityRecord(bytes);
  if (!read.ok) throw new Error(read.reason);
  return read.value;
}

export class LockstepZones {
  readonly zones: ZoneServer[] = [];
  readonly store: EmbeddedZoneStore;
  readonly feeds: FeedBatch[][] = [];
  /** Player id → the zone hosting it, as the feeds said. */
  readonly host = new Map<number, number>();
  /** Per tick audited: how many entities each world id was owned by (must be 1). */
  readonly audit = { ticks: 0, problems: [] as string[] };
  readonly commits = { ok: 0, refused: new Map<string, number>() };
  private readonly arrivals: InboxEntry[][] = [];
  private readonly epochs: number[] = [];
  private nowMs = 0;
  private tick = 0;

  private readonly codecs: ZoneCodecs;

  private constructor(private readonly options: LockstepOptions) {
    this.codecs = zoneCodecs(options.rules(0).game);
    this.store = new EmbeddedZoneStore({ nowMs: () => this.nowMs });
  }

  static async start(options: LockstepOptions): Promise<LockstepZones> {
    const cluster = new LockstepZones(options);
    for (let zone = 0; zone < options.map.zoneCount; zone++) {
      const lease = await cluster.store.acquireLease(zone, `zone-${zone}`, 60_000);
      if (lease === null) throw new Error(`no lease for zone ${zone}`);
      cluster.epochs.push(lease.epoch);
      cluster.zones.push(
        new ZoneServer({
          rules: options.rules(zone),
          map: options.map,
          zone,
          epoch: lease.epoch,
          handoff: options.handoff ?? { margin: 2, minDwellTicks: 30 },
        }),
      );
      cluster.arrivals.push([]);
      cluster.feeds.push([]);
    }
    const joins: GatewayBatch = {
      gateway: 0,
      tick: 1,
      joins: [...options.players],
      leaves: [],
      inputs: [],
      messages: [],
    };
    cluster.deliver(0, joins);
    for (const playerId of options.players) cluster.host.set(playerId, 0);
    cluster.sendInputs(1);
    return cluster;
  }

  /** Owned world ids per zone. */
  owned(zone: number): number[] {
    const simulation = this.zones[zone].simulation;
    return simulation.owned.map((e) => simulation.worldIds[e.id]);
  }

  /** Every entity of the world by world id, with those in flight to their next zone: its state and data. */
  everything(): Map<number, { state: unknown; data: unknown }> {
    const all = new Map<number, { state: unknown; data: unknown }>();
    for (const zone of this.zones)
      for (const e of zone.simulation.owned)
        all.set(zone.simulation.worldIds[e.id], { state: e.state, data: JSON.parse(JSON.stringify(e.data)) });
    for (const entries of this.arrivals)
      for (const entry of entries) {
        const record = decode(this.codecs, entry.payload);
        all.set(record.worldId, { state: record.state, data: JSON.parse(record.data) });
      }
    return new Map([...all].sort((a, b) => a[0] - b[0]));
  }

  /** Every player's data by player id, with those in flight. */
  playerData(): Map<number, unknown> {
    const all = new Map<number, unknown>();
    for (const zone of this.zones)
      for (const player of zone.simulation.players) {
        const playerId = zone.simulation.playerIdAt(player.index);
        all.set(playerId, JSON.parse(JSON.stringify(player.data)));
      }
    for (const entries of this.arrivals)
      for (const entry of entries) {
        const player = decode(this.codecs, entry.payload).player;
        if (player !== null) all.set(player.playerId, JSON.parse(player.data));
      }
    return new Map([...all].sort((a, b) => a[0] - b[0]));
  }

  async step(): Promise<void> {
    const tick = ++this.tick;
    this.nowMs += 1000 / 30;
    for (let zone = 0; zone < this.zones.length; zone++) {
      for (const entry of this.arrivals[zone]) this.zones[zone].arrive(decode(this.codecs, entry.payload));
      this.arrivals[zone] = [];
    }
    this.sendInputs(tick + 1);
    this.checkOwnership(tick);
    const results = this.zones.map((zone) => zone.step());
    for (const { feed } of results) {
      this.feeds[feed.zone].push(feed);
      for (const owner of feed.owners) this.host.set(owner.playerId, feed.zone);
    }
    for (let from = 0; from < results.length; from++)
      for (const handoff of results[from].handoffs) {
        const result = await this.store.commitHandoff({
          worldId: handoff.record.worldId,
          from,
          fromEpoch: this.epochs[from],
          to: handoff.to,
          hseq: handoff.record.hseq,
          tick: handoff.tick,
          payload: encode(this.codecs, handoff.record),
        });
        if (result === 'ok') this.commits.ok++;
        else {
          this.commits.refused.set(result, (this.commits.refused.get(result) ?? 0) + 1);
          if (result === 'inbox-full') this.zones[from].handoffRefused(handoff);
        }
      }
    for (let zone = 0; zone < this.zones.length; zone++) {
      const read = await this.store.readInbox(zone, this.epochs[zone], { from: 'new' }, 1024);
      if (read.status !== 'ok') throw new Error(`zone ${zone}: inbox read ${read.status}`);
      this.arrivals[zone].push(...read.entries);
      const last = read.entries.at(-1);
      // Acked at once here (the snapshot that would ack them is not the point of this harness).
      if (last !== undefined)
        await this.store.writeSnapshot(zone, this.epochs[zone], tick, last.cursor, new Uint8Array(1));
    }
  }

  private sendInputs(tick: number): void {
    const batches = new Map<number, ZoneInput[]>();
    for (const playerId of this.options.players) {
      const zone = this.host.get(playerId) ?? 0;
      const list = batches.get(zone) ?? [];
      list.push({ playerId, tick, viewTick: tick - 2, input: this.options.input(playerId, tick) });
      batches.set(zone, list);
    }
    for (const [zone, inputs] of batches)
      this.deliver(zone, { gateway: 0, tick, joins: [], leaves: [], inputs, messages: [] });
  }

  private deliver(zone: number, batch: GatewayBatch): void {
    const forwards: ForwardedBatch[] = this.zones[zone].receive(batch);
    for (const forward of forwards) this.deliver(forward.to, forward.batch);
  }

  private checkOwnership(tick: number): void {
    const seen = new Map<number, number>();
    for (let zone = 0; zone < this.zones.length; zone++)
      for (const worldId of this.owned(zone)) {
        const other = seen.get(worldId);
        if (other !== undefined)
          this.audit.problems.push(`tick ${tick}: ${worldId} owned by zones ${other} and ${zone}`);
        seen.set(worldId, zone);
      }
    this.audit.ticks++;
    this.lastOwned = seen;
  }

  /** The owners audited before the last step. */
  lastOwned = new Map<number, number>();
}
