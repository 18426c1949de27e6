/** The packet fuzz: its target name and readers, options, report types, defaults and constants. */

import type { ReliableConfig, ReliableCounters } from '../../src/packet/index.js';
import type { Progress, TargetReport } from '../fuzz-core.js';

export const PACKET_TARGET = 'packet';

export const PACKET_READERS = [
  'A: crc32+endpoint',
  'B: crc32+endpoint',
  'victim A (raw)',
  'victim B (raw)',
] as const;

export interface PacketFuzzOptions {
  readonly seed: number;
  /** Distinct datagrams to feed (real and injected); each reaches a protected endpoint and a victim. */
  readonly datagrams: number;
  /** Link loss per direction, percent (default 10). */
  readonly loss?: number;
  /** Link duplicates per direction, percent (default 5). */
  readonly duplicates?: number;
  /** Real datagrams with one bit flipped on arrival, percent (default 20). */
  readonly corruption?: number;
  /** Injected datagrams per 100 real ones (default 30). */
  readonly injection?: number;
  /** Packets each side sends per 1/60 s tick (default 4). */
  readonly packetsPerTick?: number;
  /** Ticks between victim replacements (default 512). */
  readonly victimEpochTicks?: number;
  readonly config?: Partial<ReliableConfig>;
  /**
   * False feeds the protected endpoints without checking the CRC (default true): a control that
   * shows the property checks fail when there is no integrity check below the endpoint.
   */
  readonly checkCrc?: boolean;
  readonly onProgress?: (progress: Progress) => void;
  /** Progress about every this many ms (default 500). */
  readonly progressMs?: number;
  /** A full GC (globalThis.gc under --expose-gc), for the heap figures. */
  readonly gc?: () => void;
}

export interface ProtectedStats {
  readonly name: string;
  readonly sent: number;
  readonly delivered: number;
  readonly acked: number;
  readonly lost: number;
  readonly lostButDelivered: number;
  readonly falseAcks: number;
  readonly refused: number;
  readonly counters: ReliableCounters;
}

export interface VictimStats {
  readonly name: string;
  readonly epochs: number;
  readonly sent: number;
  readonly acked: number;
  readonly lost: number;
  /** Acks for packets the peer never accepted: forged by corruption or injection. */
  readonly unbackedAcks: number;
  /** Payloads the victim's process() accepted / refused, and how many of them were empty. */
  readonly processed: number;
  readonly refused: number;
  readonly emptyPayloads: number;
  readonly counters: ReliableCounters;
}

export interface PacketFuzzStats {
  readonly ticks: number;
  readonly simulatedSeconds: number;
  readonly realDatagrams: number;
  readonly corrupted: number;
  readonly injectedRandom: number;
  readonly injectedMutated: number;
  readonly injectedForged: number;
  readonly injectedReplays: number;
  readonly badArgumentCalls: number;
  readonly linkOffered: number;
  readonly linkLost: number;
  readonly linkDuplicated: number;
  /** Per reader: inputs that were a whole packet accepted, or a fragment stored. */
  readonly packetsAccepted: number[];
  readonly fragmentsStored: number[];
  readonly peakReassemblyBytes: number[];
  readonly reassemblyCap: number;
  readonly protectedSides: ProtectedStats[];
  readonly victims: VictimStats[];
}

export interface PacketFuzzReport extends TargetReport {
  /** Inputs per reader (readers see different shares of the datagrams). */
  readonly readerInputs: number[];
  readonly stats: PacketFuzzStats;
}

export const PACKET_FUZZ_DEFAULTS = Object.freeze({
  loss: 10,
  duplicates: 5,
  corruption: 20,
  injection: 30,
  packetsPerTick: 4,
  victimEpochTicks: 512,
  latency: 30,
  jitter: 10,
  reorder: 2,
});

export const TICK_SECONDS = 1 / 60;
export const CRC_BYTES = 4;
export const CAPTURE_SLOTS = 256;
export const FILLER = -1;

export const CLEAN = 0;
export const CORRUPTED = 1;
export const RANDOM = 2;
export const MUTATED = 3;
export const FORGED = 4;
export const REPLAY = 5;
export const BAD_ARGUMENTS = 6;
export const KIND_NAMES = [
  'a real datagram',
  'a real datagram with one bit flipped',
  'injected random bytes',
  'an injected mutation of a captured datagram',
  'an injected forged header or fragment',
  'an injected exact replay',
  'a replay, with nonsense arguments for the victim',
];

/** Counters that name why an input went no further, in the order reasons are reported. */
export const DROPS = [
  'packetsInvalid',
  'packetsTooLargeToReceive',
  'packetsStale',
  'packetsDuplicate',
  'packetsRefused',
  'fragmentsInvalid',
  'fragmentsDuplicate',
] as const;

export const MAX_REASONS = 200;
