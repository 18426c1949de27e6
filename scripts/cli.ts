/**
 * The one command-line parser for every script (npm start, bench, fuzz, soak, showcase), on Node's
 * built-in `util.parseArgs`: `--flag value` and `--flag=value`, `--help` / `-h` prints the usage
 * and exits 0, an unknown flag, a missing value or a stray argument prints the problem and the
 * usage and exits 2. Plus the replayable seed and number formats the scripts share.
 */
import { parseArgs } from 'node:util';

export interface Flag {
  /** 'string' (default) takes a value; 'boolean' is a switch. */
  kind?: 'string' | 'boolean';
  /** A one-letter alias (`-n`). */
  short?: string;
  /** The value's name in the usage (`N`, `MS`). */
  arg?: string;
  /** What it does, with its default. */
  help: string;
  /** The flag may be repeated; its values arrive as an array. */
  multiple?: boolean;
}

export type FlagValues<F extends Record<string, Flag>> = {
  [K in keyof F]: F[K]['kind'] extends 'boolean'
    ? boolean
    : F[K]['multiple'] extends true
      ? string[]
      : string | undefined;
};

/** A bad command line: its message names the problem and carries the usage. */
export class UsageError extends Error {}

export interface Command<F extends Record<string, Flag>> {
  /** How to run it, e.g. `npm start --`. */
  name: string;
  /** One or two lines on what it does and how long it takes. */
  description: string;
  flags: F;
}

export function usageText<F extends Record<string, Flag>>(command: Command<F>): string {
  const rows = Object.entries(command.flags).map(([name, flag]) => {
    const left = `${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.kind === 'boolean' ? '' : ` ${flag.arg ?? 'VALUE'}`}`;
    return [left, flag.help] as const;
  });
  rows.push(['-h, --help', 'print this and exit']);
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `usage: ${command.name} [flags]`,
    command.description,
    'flags:',
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}  ${help}`),
  ].join('\n');
}

/** Parses `argv`; throws UsageError on a bad command line; returns null when help was asked for. */
export function readCommandLine<F extends Record<string, Flag>>(
  command: Command<F>,
  argv: readonly string[],
): FlagValues<F> | null {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, flag] of Object.entries(command.flags)) {
    // parseArgs refuses keys present with an undefined value.
    options[name] = { type: flag.kind ?? 'string' };
    if (flag.short !== undefined) options[name].short = flag.short;
    if (flag.multiple === true) options[name].multiple = true;
  }
  let values: Record<string, unknown>;
  try {
    values = { ...parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values };
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usageText(command)}`);
  }
  if (values.help === true) return null;
  for (const [name, flag] of Object.entries(command.flags)) {
    if (flag.kind === 'boolean') values[name] = values[name] === true;
    else if (flag.multiple) values[name] ??= [];
  }
  return values as FlagValues<F>;
}

/**
 * The process's command line: prints the usage and exits 0 on --help; prints the problem and exits
 * 2 on a bad one.
 */
export function commandLine<F extends Record<string, Flag>>(
  command: Command<F>,
  argv: readonly string[] = process.argv.slice(2),
): FlagValues<F> {
  try {
    const values = readCommandLine(command, argv);
    if (values !== null) return values;
    console.log(usageText(command));
    process.exit(0);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

/** Checks a flag's value with `read`, exiting 2 with the message of what it throws. */
export function flagValue<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}

/** A number from a flag, `_` allowed as a digit separator (1_000_000). */
export const numberFlag = (value: string): number => Number(value.replaceAll('_', ''));

/** A number in [min, max] from a flag (or `fallback` when absent), or a throw naming the flag. */
export function rangeFlag(
  flag: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = value.trim() === '' ? Number.NaN : numberFlag(value);
  if (!(n >= min && n <= max)) throw new Error(`${flag} must be a number in [${min}, ${max}], got ${value}`);
  return n;
}

/** A positive integer flag (or `fallback` when absent), or a throw naming the flag. */
export function positiveIntegerFlag(flag: string, value: string | undefined, fallback = 0): number {
  if (value === undefined) return fallback;
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
