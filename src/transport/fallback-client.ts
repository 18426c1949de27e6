/**
 * Picks a browser client's transport: WebRTC when its data channel opens in time, else WebSocket
 * (WebRTC blocked by a firewall or proxy, or absent from the browser). Browser-safe; in Node pass
 * node-datachannel's polyfill and `ws`'s WebSocket through the transports' options.
 */
import { WebRtcClientTransport, type WebRtcClientTransportOptions } from './webrtc-client-transport.js';
import {
  WebSocketClientTransport,
  type WebSocketClientTransportOptions,
} from './websocket-client-transport.js';

export type TransportKind = 'webrtc' | 'websocket';
/** A transport forced, or 'auto': WebRTC first, WebSocket if it does not open in time. */
export type TransportChoice = TransportKind | 'auto';

export interface ConnectTransportOptions {
  /** Default 'auto'. */
  choice?: TransportChoice;
  /** How to reach the server over WebRTC; absent: the server offers none (auto goes to WebSocket). */
  webrtc?: Omit<WebRtcClientTransportOptions, 'connectTimeout'>;
  /** How to reach the server over WebSocket; absent: no fallback (auto is WebRTC only). */
  websocket?: WebSocketClientTransportOptions;
  /** Seconds the data channel has to open before auto falls back (default 3; forced WebRTC: 10). */
  webrtcTimeout?: number;
}

export interface ConnectedTransport {
  transport: WebRtcClientTransport | WebSocketClientTransport;
  kind: TransportKind;
  /** Why auto did not use WebRTC (null when it did, or when the choice was forced). */
  fallbackReason: string | null;
  /** Seconds from the call until the chosen transport was open (WebRTC's attempt included). */
  connectSeconds: number;
}

/**
 * Connects and resolves once a transport is open: start the netcode client on it then. Rejects
 * (an Error with every reason) when none opened; rejects at once on misuse (a bad choice or timeout,
 * a choice without its options).
 */
export async function connectTransport(options: ConnectTransportOptions): Promise<ConnectedTransport> {
  const { choice = 'auto', webrtc, websocket } = options;
  const where = 'connectTransport';
  if (choice !== 'auto' && choice !== 'webrtc' && choice !== 'websocket') {
    throw new RangeError(`${where}: choice must be 'auto', 'webrtc' or 'websocket', got ${String(choice)}`);
  }
  const timeout = options.webrtcTimeout ?? (choice === 'webrtc' ? 10 : 3);
  if (!(timeout > 0 && timeout <= 600)) {
    throw new RangeError(`${where}: webrtcTimeout must be in (0, 600] s, got ${timeout}`);
  }
  if (choice === 'webrtc' && webrtc === undefined)
    throw new TypeError(`${where}: 'webrtc' needs webrtc options`);
  if (choice === 'websocket' && websocket === undefined) {
    throw new TypeError(`${where}: 'websocket' needs websocket options`);
  }
  if (webrtc === undefined && websocket === undefined) throw new TypeError(`${where}: no transport given`);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;

  let fallbackReason: string | null = null;
  if (choice !== 'websocket') {
    const attempt = await tryWebRtc(webrtc, timeout);
    if (typeof attempt !== 'string') {
      return { transport: attempt, kind: 'webrtc', fallbackReason: null, connectSeconds: elapsed() };
    }
    if (choice === 'webrtc' || websocket === undefined) throw new Error(`${where}: ${attempt}`);
    fallbackReason = attempt;
  }
  const socket = new WebSocketClientTransport(websocket!);
  if (!(await socket.opened)) {
    const why = socket.closeInfo === null ? '' : ` (code ${socket.closeInfo.code})`;
    const before = fallbackReason === null ? '' : `${fallbackReason}; then `;
    throw new Error(`${where}: ${before}the WebSocket did not open${why}`);
  }
  return { transport: socket, kind: 'websocket', fallbackReason, connectSeconds: elapsed() };
}

/** The open WebRTC transport, or why there is none (the attempt closed and freed). */
async function tryWebRtc(
  options: ConnectTransportOptions['webrtc'],
  timeout: number,
): Promise<WebRtcClientTransport | string> {
  if (options === undefined) return 'the server offers no WebRTC';
  if (typeof (options.RTCPeerConnection ?? globalThis.RTCPeerConnection) !== 'function') {
    return 'WebRTC is unavailable here (no RTCPeerConnection)';
  }
  let transport: WebRtcClientTransport;
  try {
    transport = new WebRtcClientTransport({ ...options, connectTimeout: timeout });
  } catch (error) {
    return `WebRTC could not start: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    await transport.opened;
    return transport;
  } catch {
    transport.close();
    return transport.failure ?? 'the data channel did not open';
  }
}
