/**
 * Parent side of the bench suites that run part of their load in a child node process
 * (`messages` with dist/bench/message-peer.js, `serverload` with dist/bench/load-clients.js). Both
 * talk to the child in JSON lines over stdin/stdout; every wait here has a timeout, so a stuck or
 * crashed child fails the run instead of hanging the bench. The child side is ./child-main.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fail } from '../harness.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface JsonLineChildOptions {
  /** The script to run with this node binary. */
  readonly script: string;
  readonly args: readonly string[];
  /** Extra node flags placed before the script (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** Prefix of every failure message: the suite name. */
  readonly suite: string;
  /** How failure messages name the child, e.g. `message-peer`. */
  readonly name: string;
}

/** A child node process and the JSON messages it writes, with waits that time out. */
export class JsonLineChild {
  readonly process: ChildProcess;
  private readonly messages: Record<string, unknown>[] = [];
  private readonly waiters: (() => void)[] = [];
  private readonly suite: string;
  private readonly name: string;
  private stderr = '';
  private exited: string | null = null;

  constructor(options: JsonLineChildOptions) {
    this.suite = options.suite;
    this.name = options.name;
    this.process = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...options.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      try {
        this.messages.push(JSON.parse(line));
      } catch {
        this.stderr += `(stdout) ${line}\n`;
      }
      this.wake();
    });
    this.process.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.process.on('exit', (code, signal) => {
      this.exited = `exited (${signal ?? code})`;
      this.wake();
    });
    this.process.on('error', (error) => {
      this.exited = `could not start: ${error.message}`;
      this.wake();
    });
    this.process.stdin!.on('error', () => {}); // a closed pipe shows up as the exit above
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get running(): boolean {
    return this.exited === null && this.process.exitCode === null && this.process.signalCode === null;
  }

  send(message: Record<string, unknown>): void {
    if (this.running) this.process.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** The next message of `type` (a `failed` message or the child's exit fails the run). */
  async next(type: string, timeoutMs: number, what: string): Promise<Record<string, unknown>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const failed = this.messages.find((m) => m.type === 'failed');
      if (failed !== undefined)
        fail(`${this.suite}: ${this.name} failed: ${JSON.stringify(failed)}\n${this.stderr}`);
      const i = this.messages.findIndex((m) => m.type === type);
      if (i >= 0) return this.messages.splice(i, 1)[0];
      if (this.exited !== null)
        fail(`${this.suite}: ${this.name} ${this.exited} while ${what}\n${this.stderr}`);
      const left = deadline - performance.now();
      if (left <= 0) fail(`${this.suite}: timed out after ${timeoutMs} ms ${what}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Asks it to quit; kills it if it has not gone within `ms`. */
  async stop(ms: number): Promise<void> {
    if (!this.running) return;
    this.send({ type: 'quit' });
    const deadline = performance.now() + ms;
    while (this.running && performance.now() < deadline) await sleep(10);
    this.kill();
  }

  kill(): void {
    if (this.running) this.process.kill('SIGKILL');
  }
}

/** Never longer than `ms`: a stuck run fails instead of hanging the bench. `what` names the run in the error. */
export async function withDeadline<T>(ms: number, what: string, run: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
