/**
 * A device id: the random secret a page or a console keeps to sign in as its guest account with
 * no password (POST /auth { device }). 16 random bytes as 22 characters of base64url.
 */

/** Where a page keeps its device id (localStorage, or anything with the same two methods). */
export interface DeviceIdStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const STORE_KEY = 'ghostwire.deviceId';
const VALID = /^[A-Za-z0-9_-]{16,128}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A new random device id (crypto.getRandomValues: 128 bits). */
export function newDeviceId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let id = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      id += ALPHABET[(value >> bits) & 63];
    }
  }
  if (bits > 0) id += ALPHABET[(value << (6 - bits)) & 63];
  return id;
}

/**
 * This device's id, made and kept in `store` (default: the page's localStorage) the first time,
 * the same one after. Throws where there is no store (a Node process: give one, or keep
 * newDeviceId()'s answer yourself).
 */
export function storedDeviceId(store: DeviceIdStore | undefined = pageStorage()): string {
  if (store === undefined || typeof store.getItem !== 'function' || typeof store.setItem !== 'function')
    throw new TypeError('storedDeviceId: no localStorage here; give a store with getItem and setItem');
  const kept = store.getItem(STORE_KEY);
  if (kept !== null && VALID.test(kept)) return kept;
  const id = newDeviceId();
  store.setItem(STORE_KEY, id);
  return id;
}

function pageStorage(): DeviceIdStore | undefined {
  try {
    return (globalThis as { localStorage?: DeviceIdStore }).localStorage;
  } catch {
    return undefined; // a page whose storage is blocked throws on access
  }
}
