import { checkIndex } from '../channels/check-index.js';
import type { GhostSender, GhostShared } from './ghost-sender.js';
import { CREATE_PENDING, DESTROY_PENDING, LIVE, STATUS } from './ghost-table.js';
import { GhostTrace } from './ghost-trace.js';
import type { PacketTrace } from './packet-trace.js';

/** One client holding (or being sent) an entity's ghost (ReplicationInspector.whoSees). */
export interface GhostHolder {
  readonly client: number;
  /** `live`: acked; `creating`: its create is in flight; `destroying`: its destroy is in flight. */
  readonly state: 'live' | 'creating' | 'destroying';
}

/** What ReplicationInspector.watch adds on demand. */
export interface InspectOptions {
  /** Each written entity's per-field bits (TracedEntity.fields); default false. */
  readonly fields?: boolean;
}

/** A watched packet: the trace, and the client's flow mode and budget when it has them. */
export interface InspectedPacket extends PacketTrace {
  /** The flow mode and the rate it sets (kbit/s), with `flow` in the server's options; else null. */
  readonly flow: { readonly mode: string; readonly kbps: number } | null;
}

let tracesMade = 0;

/** @internal Traces made in this process (tests: none without a watcher). */
export function ghostTracesMade(): number {
  return tracesMade;
}

/**
 * The network inspector of a ReplicationServer (ReplicationServer.inspect()): per packet of a
 * watched client, what was sent, why, and its bits; per entity, who holds it. It reveals every
 * client's data: expose it only to trusted operators. Unwatched, it costs nothing: a client's
 * sender then holds no trace, and its packet loop has no inspector branch per entity.
 */
export class ReplicationInspector {
  private readonly watchers = new Map<number, Set<(packet: InspectedPacket) => void>>();
  /** The watchers that asked for per-field bits. */
  private readonly fieldWatchers = new Set<(packet: InspectedPacket) => void>();

  /** @internal Made by ReplicationServer.inspect(). */
  constructor(
    private readonly shared: GhostShared,
    private readonly senders: readonly (GhostSender | null)[],
    private readonly positions: Float64Array,
    /** The real clients, [0, clients): a recorder's virtual client after them is never shown. */
    private readonly clients: number = senders.length,
  ) {}

  /** Watchers attached, over all clients. */
  get watcherCount(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /**
   * Calls `onPacket` with a trace of each ghost section sent to `clientIndex` (also after it
   * reconnects in that slot) until the returned function is called. Tracing costs the server
   * work per packet of that client (a second measure of each entity), so watch few clients.
   * `fields: true` adds each written entity's per-field bits (while any watcher of the client
   * asks for them).
   */
  watch(
    clientIndex: number,
    onPacket: (packet: InspectedPacket) => void,
    options: InspectOptions = {},
  ): () => void {
    checkIndex('ReplicationInspector.watch', 'clientIndex', clientIndex, this.clients);
    if (typeof onPacket !== 'function')
      throw new TypeError('ReplicationInspector.watch: onPacket must be a function');
    let set = this.watchers.get(clientIndex);
    if (set === undefined) {
      set = new Set();
      this.watchers.set(clientIndex, set);
    }
    const callback = (packet: InspectedPacket): void => onPacket(packet);
    set.add(callback);
    if (options.fields === true) this.fieldWatchers.add(callback);
    const sender = this.senders[clientIndex];
    // A watcher asking for fields where the trace has none: trace anew.
    if (sender !== null && sender.trace !== null && options.fields === true && !sender.trace.fields)
      sender.trace = null;
    this.attach(clientIndex, sender);
    return () => {
      const current = this.watchers.get(clientIndex);
      this.fieldWatchers.delete(callback);
      if (current === undefined || !current.delete(callback) || current.size > 0) return;
      this.watchers.delete(clientIndex);
      const sender = this.senders[clientIndex];
      if (sender !== null) sender.trace = null;
    };
  }

  /** The clients holding (or being sent) the ghost of entity `id`: O(clients) table lookups. */
  whoSees(id: number): GhostHolder[] {
    checkIndex('ReplicationInspector.whoSees', 'id', id, this.shared.world.capacity);
    const holders: GhostHolder[] = [];
    for (let client = 0; client < this.clients; client++) {
      const sender = this.senders[client];
      if (sender === null) continue;
      const table = sender.ghosts;
      const slot = table.find(id);
      if (slot < 0) continue;
      const s = table.flags[slot] & STATUS;
      const state =
        s === LIVE ? 'live' : s === CREATE_PENDING ? 'creating' : s === DESTROY_PENDING ? 'destroying' : null;
      if (state !== null) holders.push({ client: sender.view.client, state });
    }
    return holders;
  }

  /** @internal A sender took the slot of a client (a connection): traces it when watched. */
  attach(clientIndex: number, sender: GhostSender | null): void {
    if (sender === null || sender.trace !== null) return;
    const set = this.watchers.get(clientIndex);
    if (set === undefined) return;
    tracesMade++;
    let fields = false;
    for (const callback of set) fields ||= this.fieldWatchers.has(callback);
    sender.trace = new GhostTrace(
      this.shared,
      sender.view,
      sender.entityIdBits,
      this.positions,
      (trace) => {
        const flow = sender.flow;
        const packet: InspectedPacket = {
          ...trace,
          flow: flow === null ? null : { mode: flow.mode, kbps: flow.kbps },
        };
        for (const callback of set) callback(packet);
      },
      fields,
    );
  }
}
