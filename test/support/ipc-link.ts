/**
 * Two ends of a Node IPC channel inside one process, for tests of what talks over IpcEndpoint
 * (the IPC directory, the process manager's protocol) without forking.
 */
import type { IpcEndpoint } from '../../src/services/ipc-endpoint.js';

export interface LinkedEndpoint extends IpcEndpoint {
  /** Everything sent from this end, as given to send. */
  sent: unknown[];
}

export interface IpcLink {
  parent: LinkedEndpoint;
  child: LinkedEndpoint;
  /** Closes the channel for both ends, as a child's exit would. */
  disconnect(): void;
}

/**
 * `copy` stands for the channel's serialization: structuredClone is Node's 'advanced' one. Each
 * message arrives on a later turn of the event loop, in the order sent, as over a real channel.
 */
export function ipcLink(copy: (message: unknown) => unknown = structuredClone): IpcLink {
  let connected = true;
  const disconnects = new Set<() => void>();
  const end = (
    deliver: () => Set<(message: unknown) => void>,
  ): LinkedEndpoint & { listeners: Set<(message: unknown) => void> } => {
    const listeners = new Set<(message: unknown) => void>();
    return {
      listeners,
      sent: [],
      get connected() {
        return connected;
      },
      send(message, done) {
        if (!connected) return done(new Error('IPC channel closed'));
        this.sent.push(message);
        const copied = copy(message);
        setImmediate(() => {
          for (const listener of deliver()) listener(copied);
          done(null);
        });
      },
      onMessage(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      onDisconnect(listener) {
        disconnects.add(listener);
        return () => disconnects.delete(listener);
      },
    };
  };
  const parent = end(() => child.listeners);
  const child = end(() => parent.listeners);
  const disconnect = () => {
    connected = false;
    for (const listener of [...disconnects]) listener();
  };
  return { parent, child, disconnect };
}
