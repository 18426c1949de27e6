/**
 * The little of a message port the zone adapters use, so Node's MessagePort (a MessageChannel end,
 * a worker's parentPort) and Worker both fit, and so do test fakes. No `node:` import: the
 * adapters stay loadable anywhere, and the caller brings the port.
 */

export interface MessagePortLike {
  /** Sends a structured-clone copy of `value`; the buffers in `transfer` move instead of copying. */
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  /**
   * 'message' gives each value received. The port's end is 'close' (a MessagePort, when either
   * end closes) or 'exit' (a Worker); the adapters listen to both.
   */
  on(event: 'message', listener: (value: unknown) => void): unknown;
  on(event: 'close' | 'exit', listener: () => void): unknown;
  /** Ends the port (a Worker has none: terminate it instead). */
  close?(): void;
}

/** Calls `onEnd` once when the port closes or its worker exits. */
export function onPortEnd(port: MessagePortLike, onEnd: () => void): void {
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  port.on('close', end);
  port.on('exit', end);
}

/** Closes the port if it can be closed; a port already gone is not an error here. */
export function closePort(port: MessagePortLike): void {
  try {
    port.close?.();
  } catch {
    // Closing twice, or a port whose other end is gone: nothing left to close.
  }
}

/** Posts, reporting a value that cannot be cloned (or a port that refuses) instead of throwing. */
export function tryPost(port: MessagePortLike, value: unknown, transfer?: ArrayBuffer[]): Error | null {
  try {
    if (transfer === undefined || transfer.length === 0) port.postMessage(value);
    else port.postMessage(value, transfer);
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A plain object (what structured clone makes of one), not an array or a typed array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}
