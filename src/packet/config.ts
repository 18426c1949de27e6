/**
 * Configuration of a ReliableEndpoint. Defaults are the reference's (reliable 1.4.0), plus the
 * ackTimeout that delivery notification needs.
 */
export interface ReliableConfig {
  /** For logs and errors. */
  name: string;
  /** Largest payload `sendPacket` accepts, in bytes (default 16 KiB). */
  maxPacketSize: number;
  /** Payloads above this many bytes are split into fragments (default 1024). */
  fragmentAbove: number;
  /** Payload bytes per fragment (default 1024). */
  fragmentSize: number;
  /** Most fragments per packet, at most 256 (default 16). */
  maxFragments: number;
  /** Sent packets remembered for acks and statistics (default 256). */
  sentPacketsBufferSize: number;
  /** Received packets remembered for ack bits and duplicate detection (default 256). */
  receivedPacketsBufferSize: number;
  /** Packets being reassembled at once; caps reassembly memory (default 64). */
  fragmentReassemblyBufferSize: number;
  /** Seconds after which a sent packet that was not acked is reported lost (default 1). */
  ackTimeout: number;
  /** Exponential smoothing of RTT samples (default 0.0025). */
  rttSmoothingFactor: number;
  /** RTT samples min / max / average / jitter are taken over (default 512; tallied in 8 blocks, so the newest 7/8 to all of them). */
  rttHistorySize: number;
  /** Smoothing of the packet loss percentage (default 0.1). */
  packetLossSmoothingFactor: number;
  /** Smoothing of the bandwidth figures (default 0.1). */
  bandwidthSmoothingFactor: number;
  /** Bytes of IP + UDP header counted into bandwidth per packet (default 28: IPv4 20 + UDP 8). */
  packetHeaderSize: number;
}

export const DEFAULT_RELIABLE_CONFIG: Readonly<ReliableConfig> = Object.freeze({
  name: 'endpoint',
  maxPacketSize: 16 * 1024,
  fragmentAbove: 1024,
  fragmentSize: 1024,
  maxFragments: 16,
  sentPacketsBufferSize: 256,
  receivedPacketsBufferSize: 256,
  fragmentReassemblyBufferSize: 64,
  ackTimeout: 1,
  rttSmoothingFactor: 0.0025,
  rttHistorySize: 512,
  packetLossSmoothingFactor: 0.1,
  bandwidthSmoothingFactor: 0.1,
  packetHeaderSize: 28,
});

function integer(config: ReliableConfig, key: keyof ReliableConfig, min: number, max: number): void {
  const value = config[key] as number;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`ReliableConfig.${key} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

function fraction(config: ReliableConfig, key: keyof ReliableConfig): void {
  const value = config[key] as number;
  if (!(value > 0 && value <= 1))
    throw new RangeError(`ReliableConfig.${key} must be in (0, 1], got ${value}`);
}

/** Configs reliableConfig made: an endpoint given one keeps it instead of a copy of its own. */
const checked = new WeakSet<ReliableConfig>();

/** `config` itself when reliableConfig made it, else reliableConfig(config). */
export function checkedReliableConfig(config: Partial<ReliableConfig>): ReliableConfig {
  return checked.has(config as ReliableConfig) ? (config as ReliableConfig) : reliableConfig(config);
}

/**
 * The defaults with `overrides` applied, checked: a bad setting throws naming it. Endpoints built
 * with the result share it (a server's: one config, not one per connection), so change it only
 * through a new call.
 */
export function reliableConfig(overrides: Partial<ReliableConfig> = {}): ReliableConfig {
  const config: ReliableConfig = { ...DEFAULT_RELIABLE_CONFIG, ...overrides };
  integer(config, 'maxPacketSize', 1, 256 * 65536);
  integer(config, 'fragmentSize', 1, 65536);
  integer(config, 'fragmentAbove', 0, 256 * 65536); // at or above maxPacketSize: never fragment
  integer(config, 'maxFragments', 1, 256);
  integer(config, 'sentPacketsBufferSize', 2, 65536);
  integer(config, 'receivedPacketsBufferSize', 2, 65536);
  integer(config, 'fragmentReassemblyBufferSize', 1, 65536);
  integer(config, 'rttHistorySize', 1, 65536);
  integer(config, 'packetHeaderSize', 0, 1024);
  fraction(config, 'rttSmoothingFactor');
  fraction(config, 'packetLossSmoothingFactor');
  fraction(config, 'bandwidthSmoothingFactor');
  if (!(config.ackTimeout > 0))
    throw new RangeError(`ReliableConfig.ackTimeout must be > 0 seconds, got ${config.ackTimeout}`);
  if (
    config.maxPacketSize > config.fragmentAbove &&
    Math.ceil(config.maxPacketSize / config.fragmentSize) > config.maxFragments
  ) {
    throw new RangeError(
      `ReliableConfig: maxPacketSize ${config.maxPacketSize} needs ${Math.ceil(config.maxPacketSize / config.fragmentSize)} fragments of ${config.fragmentSize} bytes, above maxFragments ${config.maxFragments}; raise maxFragments or fragmentSize`,
    );
  }
  checked.add(config);
  return config;
}
