/**
 * A gateway's hold on its index in a world that spans machines: claimed at start, renewed every
 * third of its time to live, given back at close. The index is the high bits of its players' ids,
 * so two live gateways never share one. A renewal the store cannot answer (an outage) leaves the
 * gateway serving and is tried again; one answered 'stale' means another process claimed the
 * index after the lease lapsed, and the gateway must stop serving (`onLost`). Browser-safe.
 */
import type { LeaseResult } from './zone-store.js';

/** A gateway index a process holds, and the epoch its renewals name. */
export interface GatewayLease {
  gateway: number;
  epoch: number;
}

/** Where gateway leases are kept (RedisZoneStore). */
export interface GatewayLeases {
  claimGateway(processId: string, ttlMs: number): Promise<GatewayLease | null>;
  renewGateway(lease: GatewayLease, ttlMs: number): Promise<LeaseResult>;
  releaseGateway(lease: GatewayLease): Promise<LeaseResult>;
}

export interface GatewayLeaseKeeperOptions {
  leases: GatewayLeases;
  processId: string;
  ttlMs: number;
  /** Another process holds the index now: stop serving. */
  onLost: () => void;
  /** A renewal failed (once per outage). */
  onError: (error: unknown) => void;
}

export class GatewayLeaseKeeper {
  private readonly timer: ReturnType<typeof setInterval>;
  private renewing = false;
  private failing = false;
  private closed = false;

  private constructor(
    private readonly options: GatewayLeaseKeeperOptions,
    readonly lease: GatewayLease,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(options.ttlMs / 3)));
  }

  /** Claims the lowest free index; rejects when every index is held. */
  static async claim(options: GatewayLeaseKeeperOptions): Promise<GatewayLeaseKeeper> {
    const lease = await options.leases.claimGateway(options.processId, options.ttlMs);
    if (lease === null) throw new RangeError('every gateway index of this world (256) is held');
    return new GatewayLeaseKeeper(options, lease);
  }

  get gateway(): number {
    return this.lease.gateway;
  }

  /** Stops renewing and gives the index back (a store that cannot be reached lets it lapse). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.options.leases.releaseGateway(this.lease).catch(() => 'stale');
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.closed) return;
    this.renewing = true;
    try {
      const result = await this.options.leases.renewGateway(this.lease, this.options.ttlMs);
      this.failing = false;
      if (result === 'stale' && !this.closed) {
        this.closed = true;
        clearInterval(this.timer);
        this.options.onLost();
      }
    } catch (error) {
      if (!this.failing) this.options.onError(error);
      this.failing = true;
    } finally {
      this.renewing = false;
    }
  }
}
