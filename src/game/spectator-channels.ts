/**
 * The channels a spectator's connection uses in place of a player's (browser-safe): the
 * spectator's one request (follow an entity, or a free camera) on the game's control channel, and
 * the refusing channel a server puts where a spectator's inputs would go.
 *
 * A request is a custom channel entry: version (uint8, newer replaces older), kind (1 bit), then
 * the followed id (uint32) or the camera's x and y (float32 each). The client repeats its newest
 * request in every packet until a packet carrying it is acked.
 */
import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import type { ScratchList } from '../channels/scratch-list.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/** What a spectator asks to watch: an entity to follow, or a point for a free camera. */
export type SpectatorRequest = { follow: number } | { camera: { x: number; y: number } };

/** Bits of one request entry at most: version, kind, two float32. */
const REQUEST_BITS = 8 + 1 + 64;

/** The largest camera coordinate a server accepts (absolute value). */
export const MAX_CAMERA_COORDINATE = 1e9;

/** The client side of the control channel: sends the newest request until it is acked. */
export class SpectatorRequestSender implements CustomChannel {
  private request: SpectatorRequest | null = null;
  private version = 0;
  private ackedVersion = 0;

  /** Asks for `request` from now on (replaces any earlier one). */
  set(request: SpectatorRequest): void {
    this.request = request;
    this.version = (this.version + 1) & 0xff || 1;
  }

  select(_now: number, budgetBits: number): number {
    if (this.request === null || this.ackedVersion === this.version) return 0;
    return budgetBits >= REQUEST_BITS ? REQUEST_BITS : 0;
  }

  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    const request = this.request!;
    ws.uint8(this.version);
    if ('follow' in request) {
      ws.bool(false);
      ws.uint32(request.follow);
    } else {
      ws.bool(true);
      ws.float32(request.camera.x);
      ws.float32(request.camera.y);
    }
    record.push(this.version);
  }

  read(rs: ReadStream): boolean {
    rs.fail('a server sends nothing on the spectator channel');
    return false;
  }

  apply(): void {}

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k < end; k++) if (record[k] === this.version) this.ackedVersion = this.version;
  }
}

/** A request as read, before it is applied. */
export interface ReadRequest {
  version: number;
  follow: number;
  x: number;
  y: number;
}

/**
 * The server side of the control channel for one connection: reads a request, checks it (id
 * within the world's capacity, finite coordinates within MAX_CAMERA_COORDINATE, a newer version)
 * and hands it to `apply` at most `perSecond` times a second; everything else is refused and
 * counted through `refused(reason)`.
 */
export class SpectatorRequestReceiver implements CustomChannel {
  private version = 0;
  private tokens: number;
  private last = Number.NaN;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly now: () => number,
    private readonly accept: (request: ReadRequest) => boolean,
    private readonly refused: (reason: string) => void,
  ) {
    this.tokens = perSecond;
  }

  select(): number {
    return 0;
  }

  writeSelected(): void {}

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    const version = rs.uint8(0);
    const camera = rs.bool(false);
    let follow = -1;
    let x = 0;
    let y = 0;
    if (camera) {
      x = rs.float32(0);
      y = rs.float32(0);
      if (rs.ok && !(Math.abs(x) <= MAX_CAMERA_COORDINATE && Math.abs(y) <= MAX_CAMERA_COORDINATE)) {
        this.refused('camera outside the world');
        rs.fail('spectator camera: coordinates not finite or beyond 1e9');
      }
    } else {
      follow = rs.uint32(0);
      if (rs.ok && follow >= this.capacity) {
        this.refused('follow id beyond the world');
        rs.fail(`spectator follow: id ${follow} beyond the world's ${this.capacity} entities`);
      }
    }
    if (!rs.ok) return false;
    staged.push({ version, follow, x, y } satisfies ReadRequest);
    return true;
  }

  apply(staged: ScratchList<unknown>): void {
    for (let k = 0; k < staged.length; k++) {
      const request = staged.items[k] as ReadRequest;
      // A repeat of the request already taken (the client sends it until acked): nothing to do.
      if (request.version === this.version) continue;
      const now = this.now();
      if (!Number.isNaN(this.last))
        this.tokens = Math.min(this.perSecond, this.tokens + (now - this.last) * this.perSecond);
      this.last = now;
      if (this.tokens < 1) {
        this.refused('over the request rate');
        continue;
      }
      this.tokens -= 1;
      if (this.accept(request)) this.version = request.version;
    }
  }

  acked(): void {}
}

/**
 * A channel that takes nothing: any entry fails its packet (nothing in it is applied) and is
 * counted. A server puts it where a spectator's inputs would go; a spectator client puts it
 * where a player's input sender would go (it writes nothing).
 */
export class RefusingChannel implements CustomChannel {
  constructor(
    private readonly refused: () => void,
    private readonly what: string,
  ) {}

  select(): number {
    return 0;
  }

  writeSelected(): void {}

  read(rs: ReadStream): boolean {
    this.refused();
    rs.fail(this.what);
    return false;
  }

  apply(): void {}

  acked(): void {}
}
