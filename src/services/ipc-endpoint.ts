/**
 * One side of a Node IPC channel, seen the same way from the parent (a forked child) and from the
 * child (its own process): the process manager, its children and the IPC directory talk through
 * this, and tests link two of them in one process.
 */
import type { ChildProcess } from 'node:child_process';

export interface IpcEndpoint {
  /** False once the channel closed: nothing more can be sent or received. */
  readonly connected: boolean;
  /** Sends a structured-clonable value; `done` gets the error when it could not be sent. */
  send(message: unknown, done: (error: Error | null) => void): void;
  /** Adds a listener for messages; returns the function that removes it. */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Adds a listener for the channel closing; returns the function that removes it. */
  onDisconnect(listener: () => void): () => void;
}

/** The parent's side of a child's channel. */
export function childEndpoint(child: ChildProcess): IpcEndpoint {
  return {
    get connected() {
      return child.connected;
    },
    send(message, done) {
      if (!child.connected) {
        done(new Error('IPC channel closed'));
        return;
      }
      child.send(message as never, done);
    },
    onMessage(listener) {
      child.on('message', listener);
      return () => child.off('message', listener);
    },
    onDisconnect(listener) {
      child.on('disconnect', listener);
      return () => child.off('disconnect', listener);
    },
  };
}

/** This process's side of the channel to its parent, or null when it was not forked with one. */
export function parentEndpoint(): IpcEndpoint | null {
  if (typeof process.send !== 'function' || !process.connected) return null;
  return {
    get connected() {
      return process.connected;
    },
    send(message, done) {
      if (!process.connected || process.send === undefined) {
        done(new Error('IPC channel closed'));
        return;
      }
      process.send(message, undefined, undefined, done);
    },
    onMessage(listener) {
      process.on('message', listener);
      return () => process.off('message', listener);
    },
    onDisconnect(listener) {
      process.on('disconnect', listener);
      return () => process.off('disconnect', listener);
    },
  };
}

/** Ignores a send failure: the channel closing is seen through onDisconnect or the child's exit. */
export function ignoreSendError(_error: Error | null): void {}
