/**
 * The light bot's side of replication: the states half every ClientMirror is made of
 * (MirrorStates: the same receiver, refusals and baselines, one piece of code), without what only
 * a game needs: the ghosts' values rebuilt from their states, create/update/destroy callbacks and
 * event dispatch. The server sees the same channel: a client's replication entry writes nothing
 * either way, and packets are acked below it.
 */
import type { AnyEntityType } from '../src/replication/entity-type.js';
import type { GhostLookup } from '../src/replication/event-receiver.js';
import { type MirrorListener, MirrorStates } from '../src/replication/mirror-states.js';
import type { ReadStream } from '../src/serialize/read-stream.js';

/** A ClientMirror's default, which the server's configuration fingerprint covers. */
const HISTORY_LENGTH = 32;

/** Events go nowhere: no ghost is looked up for them. */
const NO_GHOSTS: GhostLookup = { ghost: () => null };

export class LightMirror extends MirrorStates {
  /** Sections refused (bad, stale or of another configuration). */
  refused = 0;

  constructor(types: readonly AnyEntityType[], capacity: number) {
    const listener: MirrorListener = {
      created() {},
      stored() {},
      removed() {},
      appliedSection: () => this.eventReceiver.apply(NO_GHOSTS, undefined),
      configurationMismatch() {},
    };
    super(types, capacity, HISTORY_LENGTH, [], 1, listener, true);
  }

  override read(rs: ReadStream, staged: { push(item: unknown): void }): boolean {
    if (super.read(rs, staged)) return true;
    this.refused++;
    return false;
  }
}
