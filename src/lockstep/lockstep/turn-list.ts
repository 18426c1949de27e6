import { bitsRequired } from '../../bits/bits-required.js';
import type { Codec } from '../../schema/codec.js';
import type { ReadStream } from '../../serialize/read-stream.js';
import type { WriteStream } from '../../serialize/write-stream.js';
import { TURN_MS_MAX, TURN_MS_MIN } from './lockstep-options.js';

/**
 * One peer's command list for one turn, as it travels (docs/lockstep.md, "Wire format"):
 *   commands  1 bit "any"; then count - 1 in [0, maxCommands) and each command by its schema
 *   checksum  1 bit "present"; then uint32: the sender's checksum after turn `turn - delay`
 *   controls  1 bit "any" (only the host's are applied); then count - 1 in [0, 3] and each:
 *             1 bit kind: 0 turn length → int in [10, 5000] ms, applied after this turn;
 *             1 join → peer index (6 bits), then its first turn − this turn in [1, 1024]
 * An empty turn costs 3 bits and its 33-bit checksum.
 */
export type TurnControl =
  | { kind: 'turnMs'; turnMs: number }
  | { kind: 'join'; peer: number; fromTurn: number };

export const MAX_CONTROLS = 4;
export const MAX_JOIN_OFFSET = 1024;
/** Peer indices on the wire (PeerLinks has at most 64 peers). */
export const MAX_PEERS = 64;

export class TurnList<T> {
  turn = -1;
  count = 0;
  readonly commands: T[] = [];
  hasChecksum = false;
  checksum = 0;
  readonly controls: TurnControl[] = [];
  /** Bits on the wire, and when it was sealed, s (set when an own list is sealed). */
  bits = 0;
  sealedAt = 0;

  reset(turn: number): void {
    this.turn = turn;
    this.count = 0;
    this.hasChecksum = false;
    this.checksum = 0;
    this.controls.length = 0;
  }

  /** The commands as a list of their own (valid until this list is reused). */
  view(): readonly T[] {
    if (this.commands.length !== this.count) this.commands.length = this.count;
    return this.commands;
  }
}

/** Writes, reads and measures lists of one command schema. */
export class TurnListCodec<T> {
  private readonly countBits: number;

  /** `maxPeers`: the session's peer count; a join naming a peer at or past it is refused at read. */
  constructor(
    readonly codec: Codec<T>,
    readonly maxCommands: number,
    readonly maxPeers = MAX_PEERS,
  ) {
    this.countBits = bitsRequired(0, maxCommands - 1);
  }

  /** The most bits one list can take. */
  get maxBits(): number {
    return 1 + this.countBits + this.maxCommands * this.codec.maxBits + 33 + 1 + 2 + MAX_CONTROLS * 18;
  }

  measure(list: TurnList<T>): number {
    let bits = 3 + (list.hasChecksum ? 32 : 0);
    if (list.count > 0) {
      bits += this.countBits;
      for (let i = 0; i < list.count; i++) bits += this.codec.measure(list.commands[i]);
    }
    if (list.controls.length > 0) {
      bits += 2;
      for (const c of list.controls)
        bits += c.kind === 'turnMs' ? 1 + bitsRequired(TURN_MS_MIN, TURN_MS_MAX) : 18;
    }
    return bits;
  }

  write(ws: WriteStream, list: TurnList<T>): void {
    if (ws.bool(list.count > 0)) {
      ws.int(list.count - 1, 0, this.maxCommands - 1);
      for (let i = 0; i < list.count; i++) this.codec.write(ws, list.commands[i]);
    }
    if (ws.bool(list.hasChecksum)) ws.uint32(list.checksum);
    if (ws.bool(list.controls.length > 0)) {
      ws.int(list.controls.length - 1, 0, MAX_CONTROLS - 1);
      for (const c of list.controls) {
        if (ws.bool(c.kind === 'join')) {
          const join = c as { peer: number; fromTurn: number };
          ws.int(join.peer, 0, MAX_PEERS - 1);
          ws.int(join.fromTurn - list.turn, 1, MAX_JOIN_OFFSET);
        } else ws.int((c as { turnMs: number }).turnMs, TURN_MS_MIN, TURN_MS_MAX);
      }
    }
  }

  /** Reads a list for `turn` into `out` (its command objects reused); false with `rs.fail` when bad. */
  read(rs: ReadStream, turn: number, out: TurnList<T>): boolean {
    out.reset(turn);
    if (rs.bool(false)) {
      const count = rs.int(0, 0, this.maxCommands - 1) + 1;
      if (!rs.ok) return false;
      for (let i = 0; i < count; i++) {
        const value = this.codec.read(rs, out.commands[i]);
        if (value === null) return false;
        out.commands[i] = value;
      }
      out.count = count;
    }
    if (rs.bool(false)) {
      out.checksum = rs.uint32(0);
      out.hasChecksum = true;
    }
    if (rs.bool(false)) {
      const count = rs.int(0, 0, MAX_CONTROLS - 1) + 1;
      for (let i = 0; i < count && rs.ok; i++) {
        if (rs.bool(false)) {
          const peer = rs.int(0, 0, MAX_PEERS - 1);
          if (peer >= this.maxPeers)
            rs.fail(`join of peer ${peer}, past the session's ${this.maxPeers} peers`);
          const offset = rs.int(0, 1, MAX_JOIN_OFFSET);
          out.controls.push({ kind: 'join', peer, fromTurn: turn + offset });
        } else out.controls.push({ kind: 'turnMs', turnMs: rs.int(0, TURN_MS_MIN, TURN_MS_MAX) });
      }
    }
    return rs.ok;
  }
}
