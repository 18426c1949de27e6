/**
 * What a connect token's 256 bytes of user data carry for the services: the room the client was
 * given a seat in and the seat's id. The room server reads them when the client connects and takes
 * the seat in the directory. Layout: version (1), then two length-prefixed ASCII strings.
 */
export const SEAT_USER_DATA_VERSION = 1;
/** Longest room or seat id the user data carries. */
export const MAX_ID_LENGTH = 64;

export interface SeatClaim {
  roomId: string;
  seatId: string;
}

/** 256 bytes of connect-token user data naming the room and seat. Throws on an id not 1..64 ASCII. */
export function encodeSeatUserData(claim: SeatClaim): Uint8Array {
  const out = new Uint8Array(256);
  out[0] = SEAT_USER_DATA_VERSION;
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
  if (data.length < 3 || data[0] !== SEAT_USER_DATA_VERSION) return null;
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
  return { roomId: ids[0], seatId: ids[1] };
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
