/**
 * A Directory that passes every call to another, except those a test makes fail (before or after
 * the call ran, as a timeout would) or wait until released.
 */
import type { Directory } from '../../src/services/directory.js';
import { roomScene } from './room-scene.js';

export interface DirectoryFaults {
  directory: Directory;
  /** The next `times` calls of `method` reject; with `afterRunning`, each ran on the directory first. */
  fail(method: keyof Directory, times?: number, afterRunning?: boolean): void;
  /** Calls of `method` made from now on wait until the returned function is called. */
  hold(method: keyof Directory): () => void;
  /** Calls of each method so far. */
  calls: Map<string, number>;
}

export function directoryFaults(inner: Directory): DirectoryFaults {
  const failures = new Map<string, { times: number; afterRunning: boolean }>();
  const gates = new Map<string, Promise<void>>();
  const calls = new Map<string, number>();
  const directory = new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return async (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        const failure = failures.get(name);
        const failing = failure !== undefined && failure.times > 0;
        if (failing) failure.times--;
        await gates.get(name);
        if (failing && !failure.afterRunning) throw new Error(`${name}: injected failure`);
        const result = await value.apply(target, args);
        if (failing) throw new Error(`${name}: injected timeout (it ran)`);
        return result;
      };
    },
  });
  return {
    directory,
    calls,
    fail(method, times = 1, afterRunning = false) {
      failures.set(method, { times, afterRunning });
    },
    hold(method) {
      let open = () => {};
      gates.set(
        method,
        new Promise<void>((resolve) => {
          open = resolve;
        }),
      );
      return () => {
        gates.delete(method);
        open();
      };
    },
  };
}

/** A room scene (room-scene.ts) whose directory calls a test can make fail or delay. */
export async function faultyRoomScene() {
  let faults: DirectoryFaults | null = null;
  const scene = await roomScene({}, (directory) => {
    faults = directoryFaults(directory);
    return faults.directory;
  });
  return { ...scene, faults: faults! as DirectoryFaults };
}
