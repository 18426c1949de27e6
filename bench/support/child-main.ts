/**
 * Child side of the JSON-line protocol in ./child-process.ts, shared by the bench's child programs
 * (message-peer, load-clients): command-line arguments, messages to the parent, a watchdog, and
 * the command loop on stdin. Nothing here runs on import.
 */
import { createInterface } from 'node:readline';

/** `--name value` from process.argv; a missing required one exits with status 2. */
export function argumentReader(program: string): (name: string, fallback?: string) => string {
  return (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    const value = i >= 0 ? process.argv[i + 1] : fallback;
    if (value === undefined) {
      process.stderr.write(`${program}: --${name} is required\n`);
      process.exit(2);
    }
    return value;
  };
}

/** One JSON line to the parent. */
export function emit(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** Whatever the parent does, the child ends: `exit(3)` after `maxSeconds`. */
export function exitAfter(program: string, maxSeconds: number, exit: (code: number) => never): void {
  setTimeout(() => {
    process.stderr.write(`${program}: still running after ${maxSeconds} s, exiting\n`);
    exit(3);
  }, maxSeconds * 1000);
}

/**
 * Calls `handle` with each JSON line on stdin; a line that is not JSON exits with 2, and stdin
 * closing (the parent went away) exits with 0.
 */
export function readCommands<T extends { type?: string }>(
  program: string,
  exit: (code: number) => never,
  handle: (message: T) => void,
): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let message: T;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`${program}: not JSON: ${line.slice(0, 80)}\n`);
      exit(2);
    }
    handle(message);
  });
  lines.on('close', () => exit(0));
}
