/**
 * AEAD cost per netcode packet for each backend (pure JS @noble/ciphers, node:crypto, libsodium's
 * WebAssembly): first seal, open and rejecting a forged packet side by side for bodies of 16 to
 * 1,200 bytes; then ChaCha20-Poly1305 IETF on a 100-byte payload with the 22-byte AD netcode uses
 * (version info, protocol id, prefix byte), in place after a 3-byte header, and its parts: encrypt
 * alone, decrypt alone, rejecting a forged packet, and rejecting a forged private connect token
 * (XChaCha, 1024 bytes: what a connection-request flood costs a server). The backends must agree
 * byte for byte.
 */
import type { Aead } from '../../src/connection/aead.js';
import { MAC_BYTES, nobleAead } from '../../src/connection/aead.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { loadWasmAead } from '../../src/connection/aead-wasm.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { check, fmt, measure, type Result, type SuiteContext, type Task } from '../harness.js';

const wasmAead = await loadWasmAead();
const BACKENDS: readonly Aead[] = [nobleAead, nodeAead, wasmAead];
/** Body sizes: an ack-only packet, small and typical room-server packets, a W4 packet, a full one. */
const SIZES = [16, 64, 128, 430, 1200] as const;
const OPERATIONS = ['seal', 'open', 'reject forged'] as const;
type Operation = (typeof OPERATIONS)[number];
const PAYLOAD_BYTES = 100;
const AD_BYTES = 22;
/** prefix byte + a 2-byte sequence: the body starts unaligned, as in a real packet. */
const HEADER_BYTES = 3;
const TOKEN_BYTES = 1024;

/** Fixed pseudo-random bytes for a given seed. */
const filled = (length: number, seed: number): Uint8Array => randomBytes(prng(seed), length);

const key = filled(32, 0x4b4559);
const ad = filled(AD_BYTES, 0x4144);
const payload = filled(PAYLOAD_BYTES, 0x5041);

/** A packet buffer: header, payload, room for the MAC. */
function packetBuffer(): Uint8Array {
  const packet = new Uint8Array(HEADER_BYTES + PAYLOAD_BYTES + MAC_BYTES);
  packet.set(payload, HEADER_BYTES);
  return packet;
}

/** Sets the nonce's sequence (bytes 4..8 of 0x00000000 || sequence u64 LE) to `sequence`. */
function setSequence(nonce: Uint8Array, sequence: number): void {
  nonce[4] = sequence;
  nonce[5] = sequence >>> 8;
  nonce[6] = sequence >>> 16;
  nonce[7] = sequence >>> 24;
}

/** Encrypt then decrypt, in place, with a new sequence each iteration; returns failures. */
function roundTripTask(aead: Aead): Task {
  const packet = packetBuffer();
  const nonce = new Uint8Array(12);
  let sequence = 0;
  return {
    name: aead.name,
    units: 1,
    run(n) {
      let bad = 0;
      for (let i = 0; i < n; i++) {
        setSequence(nonce, ++sequence);
        aead.encrypt(packet, HEADER_BYTES, PAYLOAD_BYTES, ad, nonce, key);
        if (!aead.decrypt(packet, HEADER_BYTES, PAYLOAD_BYTES + MAC_BYTES, ad, nonce, key)) bad++;
      }
      return bad + packet[HEADER_BYTES];
    },
    verify(_n, result) {
      check(result === payload[0], `${aead.name}: ${result - payload[0]} round trips failed or corrupted`);
      for (let i = 0; i < PAYLOAD_BYTES; i++)
        check(packet[HEADER_BYTES + i] === payload[i], `${aead.name}: round trip changed the payload`);
    },
  };
}

function partTasks(aead: Aead): Task[] {
  const nonce = new Uint8Array(12);
  setSequence(nonce, 1000);
  const sealed = packetBuffer();
  aead.encrypt(sealed, HEADER_BYTES, PAYLOAD_BYTES, ad, nonce, key);
  const forged = sealed.slice();
  forged[forged.length - 1] ^= 1;
  const work = packetBuffer();
  const encryptBuffer = packetBuffer();
  const xNonce = filled(24, 0x584e);
  const token = filled(TOKEN_BYTES, 0x544f);
  aead.encryptX(token, 0, TOKEN_BYTES - MAC_BYTES, ad, xNonce, key);
  token[100] ^= 1;
  return [
    {
      name: `${aead.name}: encrypt`,
      units: 1,
      run(n) {
        for (let i = 0; i < n; i++) aead.encrypt(encryptBuffer, HEADER_BYTES, PAYLOAD_BYTES, ad, nonce, key);
        return encryptBuffer[HEADER_BYTES];
      },
    },
    {
      name: `${aead.name}: decrypt`,
      units: 1,
      run(n) {
        let bad = 0;
        for (let i = 0; i < n; i++) {
          work.set(sealed);
          if (!aead.decrypt(work, HEADER_BYTES, PAYLOAD_BYTES + MAC_BYTES, ad, nonce, key)) bad++;
        }
        return bad;
      },
      verify(_n, result) {
        check(result === 0, `${aead.name}: ${result} valid packets failed to decrypt`);
      },
    },
    {
      name: `${aead.name}: reject forged packet`,
      units: 1,
      run(n) {
        let accepted = 0;
        for (let i = 0; i < n; i++)
          if (aead.decrypt(forged, HEADER_BYTES, PAYLOAD_BYTES + MAC_BYTES, ad, nonce, key)) accepted++;
        return accepted;
      },
      verify(_n, result) {
        check(result === 0, `${aead.name}: accepted ${result} forged packets`);
      },
    },
    {
      name: `${aead.name}: reject forged token (X)`,
      units: 1,
      run(n) {
        let accepted = 0;
        for (let i = 0; i < n; i++) if (aead.decryptX(token, 0, TOKEN_BYTES, ad, xNonce, key)) accepted++;
        return accepted;
      },
      verify(_n, result) {
        check(result === 0, `${aead.name}: accepted ${result} forged connect tokens`);
      },
    },
  ];
}

/** Untimed: the backends produce the same bytes and open each other's packets. */
function checkAgreement(): void {
  const nonce = new Uint8Array(12);
  setSequence(nonce, 77);
  const sealed = BACKENDS.map((aead) => {
    const packet = packetBuffer();
    aead.encrypt(packet, HEADER_BYTES, PAYLOAD_BYTES, ad, nonce, key);
    return packet;
  });
  BACKENDS.forEach((aead, b) => {
    for (let i = 0; i < sealed[0].length; i++)
      check(
        sealed[b][i] === sealed[0][i],
        `aead: ${aead.name} disagrees with ${BACKENDS[0].name} at byte ${i}`,
      );
    const other = sealed[(b + 1) % BACKENDS.length].slice();
    check(
      aead.decrypt(other, HEADER_BYTES, PAYLOAD_BYTES + MAC_BYTES, ad, nonce, key),
      `${aead.name}: cannot open another backend's packet`,
    );
  });
}

/** One backend, one operation on a `size`-byte body in place after the header. */
function sizeTask(aead: Aead, size: number, operation: Operation): Task {
  const nonce = new Uint8Array(12);
  setSequence(nonce, 1);
  const body = filled(size, size);
  const sealed = new Uint8Array(HEADER_BYTES + size + MAC_BYTES);
  sealed.set(body, HEADER_BYTES);
  aead.encrypt(sealed, HEADER_BYTES, size, ad, nonce, key);
  const forged = sealed.slice();
  forged[forged.length - 1] ^= 1;
  const work = new Uint8Array(sealed.length);
  const name = `${size} B ${operation}: ${aead.name}`;
  if (operation === 'seal') {
    return {
      name,
      units: 1,
      run(n) {
        for (let i = 0; i < n; i++) {
          setSequence(nonce, i);
          aead.encrypt(work, HEADER_BYTES, size, ad, nonce, key);
        }
        return work[HEADER_BYTES];
      },
    };
  }
  const input = operation === 'open' ? sealed : forged;
  return {
    name,
    units: 1,
    run(n) {
      let opened = 0;
      for (let i = 0; i < n; i++) {
        work.set(input);
        if (aead.decrypt(work, HEADER_BYTES, size + MAC_BYTES, ad, nonce, key)) opened++;
      }
      return opened;
    },
    verify(n, result) {
      const expected = operation === 'open' ? n : 0;
      check(result === expected, `${name}: ${result} of ${n} opened, expected ${expected}`);
    },
  };
}

/** Seal, open and reject-forged per body size, the backends side by side (µs per packet). */
function runBySize(ctx: SuiteContext): void {
  const tasks = SIZES.flatMap((size) =>
    OPERATIONS.flatMap((operation) => BACKENDS.map((aead) => sizeTask(aead, size, operation))),
  );
  // 45 contestants: shorter batches keep the suite within seconds; the medians are still of all rounds.
  const results = measure(tasks, { ...ctx.options, targetMs: Math.min(ctx.options.targetMs, 10) });
  const us = (size: number, operation: Operation, aead: Aead): number =>
    (results.find((r) => r.name === `${size} B ${operation}: ${aead.name}`)?.median ?? Number.NaN) / 1000;
  const header = [
    'body',
    'operation',
    ...BACKENDS.map((b) => b.name),
    `${wasmAead.name} vs ${nodeAead.name}`,
  ];
  const rows = SIZES.flatMap((size) =>
    OPERATIONS.map((operation) => [
      `${size} B`,
      operation,
      ...BACKENDS.map((aead) => fmt(us(size, operation, aead))),
      `${(us(size, operation, wasmAead) / us(size, operation, nodeAead)).toFixed(2)}x`,
    ]),
  );
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  ctx.note(
    `AEAD by packet body size, µs per packet (medians; ChaCha20-Poly1305 IETF, ${AD_BYTES}-byte AD, in place after a ${HEADER_BYTES}-byte header)`,
  );
  for (const text of [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)])
    ctx.note(text);
  ctx.note(
    '  open and reject forged include copying the sealed packet into the work buffer (both work in place).',
  );
  ctx.record(
    'bySizeMicroseconds',
    Object.fromEntries(
      SIZES.map((size) => [
        size,
        Object.fromEntries(
          OPERATIONS.map((operation) => [
            operation,
            Object.fromEntries(BACKENDS.map((aead) => [aead.name, us(size, operation, aead)])),
          ]),
        ),
      ]),
    ),
  );
}

function packetsPerSecond(results: readonly Result[]): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.name, fmt(1e9 / r.median)]));
}

export function runAead(ctx: SuiteContext): void {
  checkAgreement();
  runBySize(ctx);

  const roundTrip = measure(BACKENDS.map(roundTripTask), ctx.options);
  ctx.table({
    title: `AEAD per ${PAYLOAD_BYTES}-byte payload packet: encrypt + decrypt in place (ChaCha20-Poly1305 IETF, ${AD_BYTES}-byte AD)`,
    unit: 'packet',
    baseline: nodeAead.name,
    results: roundTrip,
    columns: [{ header: 'packets/s (one core)', values: packetsPerSecond(roundTrip) }],
    notes: [
      `One packet = encrypt + decrypt of a ${PAYLOAD_BYTES}-byte body at offset ${HEADER_BYTES} (after the header), new nonce each time.`,
    ],
  });

  const parts = measure(BACKENDS.flatMap(partTasks), ctx.options);
  ctx.table({
    title: `AEAD by operation (ns per operation; ${PAYLOAD_BYTES}-byte packet body, ${TOKEN_BYTES}-byte private connect token)`,
    unit: 'op',
    baseline: `${nodeAead.name}: encrypt`,
    results: parts,
    columns: [{ header: 'ops/s (one core)', values: packetsPerSecond(parts) }],
    notes: [
      'decrypt includes copying the 119-byte sealed packet into the work buffer (decrypting in place consumes it).',
      'reject forged token (X): the XChaCha20-Poly1305 check a server runs on every connection request.',
    ],
  });
}
