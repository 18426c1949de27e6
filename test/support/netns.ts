/**
 * Real Linux NAT for the traversal tests: network namespaces joined by veth pairs, a "public"
 * namespace standing for the internet (the rendezvous and relay live there), and per peer a
 * router namespace doing NAT with iptables and a peer namespace behind it. Needs root, `ip netns`
 * and iptables (with the nat table). Where any is missing or the kernel refuses, the tests report
 * themselves skipped with the reason; GHOSTWIRE_REQUIRE_NETNS=1 makes that a failure.
 *
 *   peer i (10.i.0.2) ── router i (10.i.0.1 | 198.18.i.2, NAT) ── public (198.18.i.1; 198.51.100.1 on lo)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export const REQUIRE_NETNS_ENV = 'GHOSTWIRE_REQUIRE_NETNS';
/** Where the rendezvous listens in the public namespace. */
export const RENDEZVOUS_HOST = '198.51.100.1';
/** The port every peer binds (fixed, so the full-cone router's static mapping can name it). */
export const PEER_PORT = 45000;

/**
 * The NATs the tests build, by how they map and filter:
 * - 'restricted': MASQUERADE — keeps the port where it can, lets in only replies to what went out
 *   (port-restricted cone);
 * - 'full-cone': a static SNAT and DNAT of the peer's port: one public port for every destination,
 *   open to anyone (endpoint-independent mapping and filtering);
 * - 'symmetric': MASQUERADE --random-fully: a fresh random port per destination.
 */
export type NatKind = 'restricted' | 'full-cone' | 'symmetric';

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function describeError(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(error)).split('\n')[0];
}

/** Why the NAT tests cannot run here, or null when they can (probes a namespace with a nat rule). */
export function netnsUnavailableReason(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (network namespaces and iptables need it)';
  const probe = `gwprobe${randomBytes(3).toString('hex')}`;
  try {
    run('ip', ['netns', 'add', probe]);
  } catch (error) {
    return `ip netns refused: ${describeError(error)}`;
  }
  try {
    run('ip', [
      'netns',
      'exec',
      probe,
      'iptables',
      '-t',
      'nat',
      '-A',
      'POSTROUTING',
      '-j',
      'MASQUERADE',
      '--random-fully',
    ]);
    return null;
  } catch (error) {
    return `iptables (nat table, MASQUERADE --random-fully) unavailable: ${describeError(error)}`;
  } finally {
    try {
      run('ip', ['netns', 'del', probe]);
    } catch {}
  }
}

/** Skip option for the NAT tests: the reason where they cannot run and are not required, else false. */
export function netnsSkip(): string | false {
  const reason = netnsUnavailableReason();
  if (reason === null) return false;
  if (process.env[REQUIRE_NETNS_ENV] === '1')
    throw new Error(
      `NAT traversal tests are required here (${REQUIRE_NETNS_ENV}=1) but cannot run: ${reason}`,
    );
  return `NAT traversal tests skipped: ${reason}; ${REQUIRE_NETNS_ENV}=1 makes this a failure`;
}

/** A topology of namespaces, unique to this run; `destroy` removes everything it made. */
export class NatLab {
  /** 4 random bytes: two runs at once (or a leftover of a killed one) must not share names. */
  readonly id = randomBytes(4).toString('hex');
  readonly publicNs = `gw${this.id}pub`;
  private readonly namespaces: string[] = [];
  private readonly children: ChildProcess[] = [];
  /** Removes the namespaces even if the test process ends abruptly (their children stop with stdin). */
  private readonly onExit = () => this.removeNamespaces();
  /** Interrupted (Ctrl-C, a CI runner's kill): remove them too, then end as the signal would. */
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.removeNamespaces();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  constructor() {
    process.once('exit', this.onExit);
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  private addNamespace(name: string): void {
    run('ip', ['netns', 'add', name]);
    this.namespaces.push(name);
    this.exec(name, ['ip', 'link', 'set', 'lo', 'up']);
  }

  exec(ns: string, args: readonly string[]): string {
    return run('ip', ['netns', 'exec', ns, ...args]);
  }

  /** The public namespace with the rendezvous' address. Call first. */
  createPublic(): void {
    this.addNamespace(this.publicNs);
    this.exec(this.publicNs, ['ip', 'addr', 'add', `${RENDEZVOUS_HOST}/32`, 'dev', 'lo']);
    this.exec(this.publicNs, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
  }

  /** Peer `i` (1..250) behind a router doing `nat`; returns the peer's namespace and LAN address. */
  addPeer(i: number, nat: NatKind): { ns: string; host: string } {
    const router = `gw${this.id}r${i}`;
    const peer = `gw${this.id}p${i}`;
    this.addNamespace(router);
    this.addNamespace(peer);
    const up = `g${this.id}u${i}`; // public side of the router's uplink
    const wan = `g${this.id}w${i}`; // the router's uplink
    const lan = `g${this.id}l${i}`; // the router's LAN side
    const host = `g${this.id}h${i}`; // the peer's interface
    run('ip', [
      'link',
      'add',
      up,
      'netns',
      this.publicNs,
      'type',
      'veth',
      'peer',
      'name',
      wan,
      'netns',
      router,
    ]);
    run('ip', ['link', 'add', lan, 'netns', router, 'type', 'veth', 'peer', 'name', host, 'netns', peer]);
    const [pub, wanIp, lanIp, peerIp] = [`198.18.${i}.1`, `198.18.${i}.2`, `10.${i}.0.1`, `10.${i}.0.2`];
    this.exec(this.publicNs, ['ip', 'addr', 'add', `${pub}/24`, 'dev', up]);
    this.exec(this.publicNs, ['ip', 'link', 'set', up, 'up']);
    this.exec(router, ['ip', 'addr', 'add', `${wanIp}/24`, 'dev', wan]);
    this.exec(router, ['ip', 'addr', 'add', `${lanIp}/24`, 'dev', lan]);
    this.exec(router, ['ip', 'link', 'set', wan, 'up']);
    this.exec(router, ['ip', 'link', 'set', lan, 'up']);
    this.exec(router, ['ip', 'route', 'add', 'default', 'via', pub]);
    this.exec(router, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    this.exec(peer, ['ip', 'addr', 'add', `${peerIp}/24`, 'dev', host]);
    this.exec(peer, ['ip', 'link', 'set', host, 'up']);
    this.exec(peer, ['ip', 'route', 'add', 'default', 'via', lanIp]);
    const rule = (...args: string[]) => this.exec(router, ['iptables', '-t', 'nat', ...args]);
    const port = String(PEER_PORT);
    if (nat === 'restricted') rule('-A', 'POSTROUTING', '-o', wan, '-j', 'MASQUERADE');
    else if (nat === 'symmetric') rule('-A', 'POSTROUTING', '-o', wan, '-j', 'MASQUERADE', '--random-fully');
    else {
      rule(
        '-A',
        'POSTROUTING',
        '-o',
        wan,
        '-p',
        'udp',
        '-s',
        peerIp,
        '--sport',
        port,
        '-j',
        'SNAT',
        '--to-source',
        `${wanIp}:${port}`,
      );
      rule(
        '-A',
        'PREROUTING',
        '-i',
        wan,
        '-p',
        'udp',
        '--dport',
        port,
        '-j',
        'DNAT',
        '--to-destination',
        `${peerIp}:${port}`,
      );
    }
    return { ns: peer, host: peerIp };
  }

  /** Starts `node script ...args` inside `ns`; killed by destroy. */
  spawnNode(ns: string, script: string, args: readonly string[]): ChildProcess {
    // stdin stays open: the child exits when it closes, so a test process that dies takes it along.
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, script, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.children.push(child);
    return child;
  }

  /** Kills the children, then removes every namespace (and with them their interfaces and rules). */
  async destroy(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    this.removeNamespaces();
    process.removeListener('exit', this.onExit);
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
  }

  private removeNamespaces(): void {
    for (const ns of this.namespaces.reverse()) {
      try {
        run('ip', ['netns', 'del', ns]);
      } catch {}
    }
    this.namespaces.length = 0;
  }
}
