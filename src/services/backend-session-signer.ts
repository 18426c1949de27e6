/**
 * The backend's session tokens: what /auth answers and every other route asks for as
 * `Authorization: Bearer <token>`. A token is `v1.<payload>.<mac>`, both base64url: the payload is
 * JSON { u: userId, e: expiry (unix ms), d?: the verifier's data }, the mac HMAC-SHA256 over the
 * payload's bytes under the backend's secret. Stateless, so backends sharing a secret accept each
 * other's sessions; a session cannot be revoked before it expires (keep the lifetime short).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface Session {
  userId: string;
  /** Unix milliseconds. */
  expiresAt: number;
  /** What the verifier returned beside the userId (JSON). */
  data?: unknown;
}

/** A header longer than this is refused unread (a real token is a few hundred bytes). */
export const MAX_SESSION_TOKEN_CHARS = 4096;
/** The most the verifier's data may take in a token, serialized. */
export const MAX_SESSION_DATA_CHARS = 1024;
const MAX_USER_ID_CHARS = 128;

export class SessionSigner {
  constructor(private readonly secret: Uint8Array) {
    if (!(secret instanceof Uint8Array) || secret.length < 16)
      throw new RangeError('sessionSecret must be a Uint8Array of at least 16 bytes');
  }

  /** A signed token; throws (RangeError) on a userId or data the token cannot carry. */
  sign(session: Session): string {
    const { userId, expiresAt, data } = session;
    if (typeof userId !== 'string' || userId.length < 1 || userId.length > MAX_USER_ID_CHARS)
      throw new RangeError(`userId must be a string of 1..${MAX_USER_ID_CHARS} characters`);
    if (!Number.isSafeInteger(expiresAt)) throw new RangeError('expiresAt must be unix milliseconds');
    const d = data === undefined ? undefined : JSON.stringify(data);
    if (d !== undefined && d.length > MAX_SESSION_DATA_CHARS)
      throw new RangeError(`the verifier's data is over ${MAX_SESSION_DATA_CHARS} characters as JSON`);
    const payload = Buffer.from(
      JSON.stringify(d === undefined ? { u: userId, e: expiresAt } : { u: userId, e: expiresAt, d: data }),
    );
    return `v1.${payload.toString('base64url')}.${this.mac(payload).toString('base64url')}`;
  }

  /** The session a token carries, or a reason it is refused. Never throws. */
  verify(token: string, now: number): Session | string {
    if (token.length > MAX_SESSION_TOKEN_CHARS) return 'session token too long';
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') return 'not a session token';
    const payload = Buffer.from(parts[1], 'base64url');
    const mac = Buffer.from(parts[2], 'base64url');
    const expected = this.mac(payload);
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected))
      return 'session token not signed here';
    let body: unknown;
    try {
      body = JSON.parse(payload.toString('utf8'));
    } catch {
      return 'not a session token';
    }
    const { u, e, d } = (body ?? {}) as { u?: unknown; e?: unknown; d?: unknown };
    if (typeof u !== 'string' || typeof e !== 'number') return 'not a session token';
    if (e <= now) return 'session expired';
    return d === undefined ? { userId: u, expiresAt: e } : { userId: u, expiresAt: e, data: d };
  }

  private mac(payload: Uint8Array): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
  }
}

/** The token in an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length > MAX_SESSION_TOKEN_CHARS + 16) return null;
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  return match === null ? null : match[1];
}
