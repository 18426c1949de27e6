/**
 * The zone messages (zone-messages.ts) in bits, made once per game (docs/zones-wire.md). Every
 * message starts with its kind, the format version and the game's tag, so a reader refuses bytes
 * meant for another reader, another version or another game, with a reason.
 *
 * Writing is trusted: a value out of range throws at the call, a RangeError (TypeError for a
 * missing list) naming the field; a state, input, event or message outside its schema is the
 * schema codec's error, which names the schema field. Each kind writes into its own reused
 * buffer, grown when a message does not fit: what an encode returns is a view of that buffer,
 * valid until the next encode of the same kind (copy it to keep it).
 *
 * Reading is hostile: a decode never throws, whatever the bytes, and returns the value or the
 * reason with the path of the field it refused. Every count is bounded by a fixed limit and by
 * what the bytes left could hold, so a decode's work is a small constant times the input's size.
 */
import { BitWriterOverflowError } from '../bits/bit-writer.js';
import type { GameDefinition } from '../game/define-game.js';
import { WriteStream } from '../serialize/write-stream.js';
import { MAX_ZONES } from './zone-map-description.js';
import type { EntityRecord, FeedBatch, GatewayBatch, ZoneSnapshotRecord } from './zone-messages.js';
import { readFeedBatch, readGatewayBatch, writeFeedBatch, writeGatewayBatch } from './zone-wire-batches.js';
import { type WireContext, wireContextOf } from './zone-wire-context.js';
import {
  readHeader,
  type WireResult,
  writeHeader,
  ZONE_MESSAGE_KINDS,
  type ZoneMessageKind,
} from './zone-wire-fields.js';
import {
  readEntityRecord,
  readZoneSnapshot,
  writeEntityRecord,
  writeZoneSnapshot,
} from './zone-wire-records.js';

export interface ZoneCodecOptions {
  /** Zones, and the zones in world ids, must be below this (default MAX_ZONES, 256). */
  zoneLimit?: number;
}

/** The encoders and decoders of one game's zone messages. Not re-entrant: use one per thread. */
export interface ZoneCodecs {
  readonly game: GameDefinition;
  encodeGatewayBatch(batch: GatewayBatch): Uint8Array;
  decodeGatewayBatch(bytes: Uint8Array): WireResult<GatewayBatch>;
  encodeFeedBatch(batch: FeedBatch): Uint8Array;
  decodeFeedBatch(bytes: Uint8Array): WireResult<FeedBatch>;
  /**
   * A handoff's payload (HandoffCommit.payload): the store copies what it is given, so pass the
   * view to commitHandoff before the next encodeEntityRecord, or copy it.
   */
  encodeEntityRecord(record: EntityRecord): Uint8Array;
  decodeEntityRecord(bytes: Uint8Array): WireResult<EntityRecord>;
  encodeZoneSnapshot(snapshot: ZoneSnapshotRecord): Uint8Array;
  decodeZoneSnapshot(bytes: Uint8Array): WireResult<ZoneSnapshotRecord>;
}

/** The codecs of `game` (what defineGame returned); a TypeError for anything else. */
export function zoneCodecs(game: GameDefinition, options: ZoneCodecOptions = {}): ZoneCodecs {
  const zoneLimit = options.zoneLimit ?? MAX_ZONES;
  if (!Number.isInteger(zoneLimit) || zoneLimit < 1 || zoneLimit > MAX_ZONES)
    throw new RangeError(`zoneCodecs: zoneLimit must be an integer in 1..${MAX_ZONES}, got ${zoneLimit}`);
  return new GameZoneCodecs(game, wireContextOf('zoneCodecs', game, zoneLimit));
}

/** What one message kind needs: its name for reasons, its body's writer and reader. */
interface Kind<T> {
  readonly kind: ZoneMessageKind;
  readonly name: string;
  readonly write: (ctx: WireContext, ws: WriteStream, value: T) => void;
  readonly read: (ctx: WireContext) => T | null;
  /** The kind's own buffer (replaced by a larger one when a message does not fit). */
  ws: WriteStream;
}

/** The first buffer of each kind; it doubles on overflow up to the bit writer's 256 MiB. */
const INITIAL_BYTES = 1024;
const MAX_BYTES = 0x1000_0000;

function kindOf<T>(
  kind: ZoneMessageKind,
  name: string,
  write: Kind<T>['write'],
  read: Kind<T>['read'],
): Kind<T> {
  return { kind, name, write, read, ws: new WriteStream(INITIAL_BYTES) };
}

class GameZoneCodecs implements ZoneCodecs {
  private readonly gateway = kindOf(
    ZONE_MESSAGE_KINDS.gatewayBatch,
    'gateway batch',
    writeGatewayBatch,
    readGatewayBatch,
  );
  private readonly feed = kindOf(ZONE_MESSAGE_KINDS.feedBatch, 'feed batch', writeFeedBatch, readFeedBatch);
  private readonly entity = kindOf(
    ZONE_MESSAGE_KINDS.entityRecord,
    'entity record',
    writeEntityRecord,
    readEntityRecord,
  );
  private readonly snapshot = kindOf(
    ZONE_MESSAGE_KINDS.zoneSnapshot,
    'zone snapshot',
    writeZoneSnapshot,
    readZoneSnapshot,
  );

  constructor(
    readonly game: GameDefinition,
    private readonly ctx: WireContext,
  ) {}

  encodeGatewayBatch(batch: GatewayBatch): Uint8Array {
    return this.encode(this.gateway, batch);
  }

  decodeGatewayBatch(bytes: Uint8Array): WireResult<GatewayBatch> {
    return this.decode(this.gateway, bytes);
  }

  encodeFeedBatch(batch: FeedBatch): Uint8Array {
    return this.encode(this.feed, batch);
  }

  decodeFeedBatch(bytes: Uint8Array): WireResult<FeedBatch> {
    return this.decode(this.feed, bytes);
  }

  encodeEntityRecord(record: EntityRecord): Uint8Array {
    return this.encode(this.entity, record);
  }

  decodeEntityRecord(bytes: Uint8Array): WireResult<EntityRecord> {
    return this.decode(this.entity, bytes);
  }

  encodeZoneSnapshot(snapshot: ZoneSnapshotRecord): Uint8Array {
    return this.encode(this.snapshot, snapshot);
  }

  decodeZoneSnapshot(bytes: Uint8Array): WireResult<ZoneSnapshotRecord> {
    return this.decode(this.snapshot, bytes);
  }

  private encode<T>(kind: Kind<T>, value: T): Uint8Array {
    if (typeof value !== 'object' || value === null)
      throw new TypeError(`encode ${kind.name}: give a ${kind.name}`);
    for (;;) {
      const ws = kind.ws;
      ws.reset();
      try {
        writeHeader(ws, kind.kind, this.ctx.gameTag);
        kind.write(this.ctx, ws, value);
        return ws.finish();
      } catch (error) {
        // Most messages fit the buffer an earlier one grew to: grow only when one does not.
        if (!(error instanceof BitWriterOverflowError) || ws.writer.capacityBytes >= MAX_BYTES) {
          if (error instanceof Error) error.message = `encode ${kind.name}: ${error.message}`;
          throw error;
        }
        kind.ws = new WriteStream(Math.min(MAX_BYTES, ws.writer.capacityBytes * 2));
      }
    }
  }

  private decode<T>(kind: Kind<T>, bytes: Uint8Array): WireResult<T> {
    const ctx = this.ctx;
    const rs = ctx.rs;
    ctx.reason = null;
    try {
      if (!(bytes instanceof Uint8Array))
        return { ok: false, reason: `${kind.name}: input is not a Uint8Array` };
      rs.reset(bytes);
      if (!readHeader(rs, kind.kind, ctx.gameTag))
        return { ok: false, reason: `${kind.name}: header: ${rs.error}` };
      const value = kind.read(ctx);
      if (value === null)
        return { ok: false, reason: `${kind.name}: ${ctx.reason ?? rs.error ?? 'refused'}` };
      if (!rs.end()) return { ok: false, reason: `${kind.name}: ${rs.error}` };
      return { ok: true, value };
    } catch (error) {
      // Unreachable on any input by design; kept so a bug can never escape as an exception.
      return {
        ok: false,
        reason: `${kind.name}: internal error while reading: ${(error as Error)?.message ?? error}`,
      };
    }
  }
}
