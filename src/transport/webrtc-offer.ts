/**
 * The checks the WebRTC signalling endpoint runs before it spends anything on an offer: the
 * body's shape and size, and a per-address rate. Pure (no I/O), so they are tested alone.
 */
import { addressKey } from './address-key.js';

/** What the signalling endpoint answers: an HTTP status and a JSON body. */
export interface SignalingResponse {
  status: number;
  body: unknown;
}

/** A refusal: 4xx (or 503) with `{ error: reason }`. */
export function refusal(status: number, reason: string): SignalingResponse {
  return { status, body: { error: reason } };
}

/**
 * The offer's SDP, or the refusal for a body that is not `{ type: 'offer', sdp: string }` with an
 * SDP of at most `maxSdpBytes` UTF-16 code units (an SDP is ASCII, so that is its byte length).
 */
export function readOffer(body: unknown, maxSdpBytes: number): string | SignalingResponse {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refusal(400, 'body must be a JSON object { "type": "offer", "sdp": "..." }');
  }
  const { type, sdp } = body as { type?: unknown; sdp?: unknown };
  if (type !== 'offer') return refusal(400, 'type must be "offer"');
  if (typeof sdp !== 'string') return refusal(400, 'sdp must be a string');
  if (sdp.length > maxSdpBytes) {
    return refusal(413, `sdp of ${sdp.length} bytes exceeds the limit of ${maxSdpBytes} bytes`);
  }
  if (!sdp.startsWith('v=0')) return refusal(400, 'sdp must start with "v=0"');
  return sdp;
}

/**
 * At most `perSecond` offers per client in each wall-clock second (fixed windows), for at most
 * `maxAddresses` distinct clients per second: past that every new one is refused too, so a spray of
 * spoofed-looking addresses cannot grow the table. A client is its `addressKey`: an IPv4 address
 * (mapped `::ffff:a.b.c.d` or not) or an IPv6 /64, whose addresses one client picks freely.
 */
export class OfferRateLimit {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly perSecond: number,
    readonly maxAddresses: number,
  ) {}

  /** Counts an offer from `remoteIp` at `nowSeconds`; false when it is over the limit. */
  allow(remoteIp: string, nowSeconds: number): boolean {
    const address = addressKey(remoteIp);
    const window = Math.floor(nowSeconds);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = this.counts.get(address) ?? 0;
    if (count === 0 && this.counts.size >= this.maxAddresses) return false;
    if (count >= this.perSecond) return false;
    this.counts.set(address, count + 1);
    return true;
  }
}

/**
 * The answer with its ICE candidates replaced by one host candidate at `ip`:`port`, for a server
 * whose clients reach it on an address its interfaces do not carry (behind a NAT or a load
 * balancer's public IP). The one UDP port is the same for every peer, so one line is enough.
 */
export function withCandidate(sdp: string, ip: string, port: number): string {
  const lines = sdp.split(/\r?\n/).filter((line) => line !== '' && !line.startsWith('a=candidate:'));
  const candidate = `a=candidate:1 1 UDP 2130706431 ${ip} ${port} typ host`;
  const end = lines.indexOf('a=end-of-candidates');
  if (end >= 0) lines.splice(end, 0, candidate);
  else lines.push(candidate, 'a=end-of-candidates');
  return `${lines.join('\r\n')}\r\n`;
}

/** The (address, port) of every ICE candidate line in an SDP. */
export function candidatesOf(sdp: string): { ip: string; port: number }[] {
  const out: { ip: string; port: number }[] = [];
  for (const match of sdp.matchAll(/^a=candidate:\S+ \d+ \S+ \d+ (\S+) (\d+) typ/gm)) {
    out.push({ ip: match[1], port: Number(match[2]) });
  }
  return out;
}
