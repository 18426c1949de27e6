/**
 * What a connect token's 256 bytes of user data carry for the services: the room the client was
 * given a seat in and the seat's id. The room server reads them when the client connects and takes
 * the seat in the directory. Layout: version (1: a player's seat, 2: a spectator's), then two
 * length-prefixed ASCII strings. The token is sealed with the servers' private key, so a client
 * can change neither: a player's token never opens a spectator's seat, nor the reverse.
 */
export const SEAT_USER_DATA_VERSION = 1;
/** The version byte of a spectator's claim: no directory seat, the room's own spectator seats. */
export const SPECTATOR_USER_DATA_VERSION = 2;
/** Longest room or seat id the user data carries. */
export const MAX_ID_LENGTH = 64;

export interface SeatClaim {
  roomId: string;
  seatId: string;
  /** A spectator's claim (its seatId names the watch, not a directory seat); default false. */
  spectator?: boolean;
}

/** 256 bytes of connect-token user data naming the room and seat. Throws on an id not 1..64 ASCII. */
export function encodeSeatUserData(claim: SeatClaim): Uint8Array {
  const out = new Uint8Array(256);
  out[0] = claim.spectator === true ? SPECTATOR_USER_DATA_VERSION : SEAT_USER_DATA_VERSION;
  let offset = 1;
  for (const id of [claim.roomId, claim.seatId]) {
    checkId(id);
    out[offset++] = id.length;
    for (let i = 0; i < id.length; i++) out[offset++] = id.charCodeAt(i);
  }
  return out;
}

/** The claim in a token's user data, or null when it carries none (another version, bad lengths). */
export function decodeSeatUserData(data: Uint8Array): SeatClaim | null {
  const version = data[0];
  if (data.length < 3 || (version !== SEAT_USER_DATA_VERSION && version !== SPECTATOR_USER_DATA_VERSION))
    return null;
  let offset = 1;
  const ids: string[] = [];
  for (let k = 0; k < 2; k++) {
    const length = data[offset++];
    if (length === 0 || length > MAX_ID_LENGTH || offset + length > data.length) return null;
    let id = '';
    for (let i = 0; i < length; i++) {
      const c = data[offset++];
      if (c < 0x21 || c > 0x7e) return null;
      id += String.fromCharCode(c);
    }
    ids.push(id);
  }
  const claim: SeatClaim = { roomId: ids[0], seatId: ids[1] };
  if (version === SPECTATOR_USER_DATA_VERSION) claim.spectator = true;
  return claim;
}

function checkId(id: string): void {
  if (id.length === 0 || id.length > MAX_ID_LENGTH || !/^[\x21-\x7e]+$/.test(id))
    throw new RangeError(`ids are 1..${MAX_ID_LENGTH} printable ASCII characters, got ${JSON.stringify(id)}`);
}

/** A fresh unguessable id: 16 random bytes as 22 base64url characters. */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
