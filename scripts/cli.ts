/**
 * What the soak and fuzz command lines share: flag parsing, the replayable seed, number formats.
 * Errors are thrown as Error with the message to print; the scripts exit 2 on them.
 */

/**
 * Calls `handlers[flag](value)` for each `--flag value` or `--flag=value` in `argv`. `--help` and
 * `-h` print `usage` and exit; an unknown flag or a missing value throws.
 */
export function parseFlags(
  argv: readonly string[],
  handlers: Record<string, (value: string) => void>,
  usage: string,
): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    }
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const handler = Object.hasOwn(handlers, flag) ? handlers[flag] : undefined;
    if (handler === undefined) throw new Error(`unknown argument ${arg}\n${usage}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`${flag} needs a value`);
    handler(value);
  }
}

/** A number from a flag, `_` allowed as a digit separator (1_000_000). */
export const numberFlag = (value: string): number => Number(value.replaceAll('_', ''));

/** A positive integer flag, or a throw naming the flag. */
export function positiveIntegerFlag(flag: string, value: string): number {
  const n = numberFlag(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
  return n;
}

/**
 * The run's seed: the --seed value if given, else GW_SEED, else a fresh one; a given seed must be
 * a uint32 (the scripts print it, and it replays the run).
 */
export function resolveSeed(flagValue: string | undefined): number {
  const given = flagValue ?? process.env.GW_SEED;
  if (given === undefined) return (Date.now() ^ (process.pid << 16)) >>> 0;
  const seed = numberFlag(given);
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new Error('--seed / GW_SEED must be an integer in [0, 2^32)');
  }
  return seed;
}

export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
export const pct = (part: number, whole: number, digits = 2): string =>
  whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(digits)}%`;
