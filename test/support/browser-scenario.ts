import assert from 'node:assert/strict';
// The bundle's entry, run here on the sources (it registers the pure-JS AEAD, as the bundle does).
import type * as Ghostwire from '../../src/browser.js';
import * as ghostwire from '../../src/browser.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { ClientState, describeClientState } from '../../src/connection/client.js';
import {
  decryptConnectTokenPrivate,
  privateAssociatedData,
  readConnectToken,
  readConnectTokenPrivate,
} from '../../src/connection/connect-token.js';
import { CONNECT_TOKEN_BYTES } from '../../src/connection/constants.js';
import { fromHex } from './shared.js';

/**
 * What the browser bundle must do wherever it runs: run {@link browserScenario} against the
 * bundle's exports in another realm (a node:vm context without Node's globals, a Chromium page).
 * The function travels as its source text (`browserScenario.toString()`), so it uses nothing but
 * its arguments and the language's builtins, and returns plain JSON: no bigint, no byte arrays.
 */
export interface ScenarioInput {
  /** The 32-byte key the token backend and the server share. */
  privateKey: number[];
  /** Unix seconds for the token. */
  unixNow: number;
  /** The server address the token lists. */
  serverAddress: string;
}

export interface ScenarioResult {
  aead: string;
  codegen: boolean;
  schema: {
    /** The compiled (generated code) and interpreted codecs' bytes, hex. */
    compiledHex: string;
    interpretedHex: string;
    ok: boolean;
    error: string;
    /** The decoded value, its uint64 as a decimal string. */
    value: { name: string; score: number; position: number[]; session: string; alive: boolean } | null;
  };
  token: {
    /** The 2048-byte connect token generated in the realm, hex: Node decrypts its private part. */
    hex: string;
    ok: boolean;
    reason: string;
    protocolId: string;
    expireTimestamp: number;
    timeoutSeconds: number;
    serverAddresses: string[];
    /** readConnectToken on a token cut short: refused with its reason, not a throw. */
    truncatedReason: string;
  };
  handshake: {
    /** The client's state after the netcode handshake over the in-memory network, and in words. */
    state: number;
    described: string;
    /** Bytes each end received from the other. */
    serverReceived: number[];
    clientReceived: number[];
  };
}

export function browserScenario(gw: typeof Ghostwire, input: ScenarioInput): ScenarioResult {
  const hex = (bytes: Uint8Array): string =>
    Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const PROTOCOL_ID = 0x1122334455667788n;
  const privateKey = Uint8Array.from(input.privateKey);

  // A schema round trip through both code paths: generated code (when the page allows eval) and the interpreter.
  const Player = gw.t.object({
    name: gw.t.string(16),
    score: gw.t.int(-1000, 1000),
    position: gw.t.vector3(gw.t.float(-100, 100, 0.01)),
    session: gw.t.uint64(),
    alive: gw.t.bool(),
  });
  const player = {
    name: 'zoë 🚀',
    score: -17,
    position: [1.5, -99.99, 42] as [number, number, number],
    session: 0xfedcba9876543210n,
    alive: true,
  };
  const compiled = gw.compile(Player);
  const bytes = compiled.encode(player).slice();
  const decoded = compiled.decode(bytes);
  const schema: ScenarioResult['schema'] = {
    compiledHex: hex(bytes),
    interpretedHex: hex(gw.compile(Player, { codegen: false }).encode(player)),
    ok: decoded.ok,
    error: decoded.ok ? '' : decoded.error,
    value: decoded.ok
      ? {
          name: decoded.value.name,
          score: decoded.value.score,
          position: Array.from(decoded.value.position),
          session: decoded.value.session.toString(),
          alive: decoded.value.alive,
        }
      : null,
  };

  // A connect token sealed with the default AEAD (the pure-JS one), then read as a client does.
  const tokenBytes = gw.generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey,
    clientId: 42n,
    serverAddresses: [gw.toAddress(input.serverAddress)],
    now: input.unixNow,
    expireSeconds: 30,
    timeoutSeconds: 5,
  });
  const read = gw.readConnectToken(tokenBytes);
  const truncated = gw.readConnectToken(tokenBytes.subarray(0, 100));
  const token: ScenarioResult['token'] = {
    hex: hex(tokenBytes),
    ok: read.ok,
    reason: read.ok ? '' : read.reason,
    protocolId: read.ok ? read.token.protocolId.toString(16) : '',
    expireTimestamp: read.ok ? read.token.expireTimestamp : 0,
    timeoutSeconds: read.ok ? read.token.timeoutSeconds : 0,
    serverAddresses: read.ok ? read.token.serverAddresses.map(String) : [],
    truncatedReason: truncated.ok ? '' : truncated.reason,
  };

  // The whole netcode handshake and a packet each way, client and server both in this realm.
  const network = new gw.MemoryNetwork();
  const serverTransport = network.createTransport(input.serverAddress);
  const serverReceived: number[] = [];
  const clientReceived: number[] = [];
  const server = new gw.Server({
    protocolId: PROTOCOL_ID,
    privateKey,
    publicAddresses: [serverTransport.localAddress],
    transports: [serverTransport],
    unixTime: () => input.unixNow,
    onPacket: (_index, data, offset, length) =>
      serverReceived.push(...data.subarray(offset, offset + length)),
  });
  const client = new gw.Client({
    transport: network.createTransport('10.0.0.1:0'),
    onPacket: (data, offset, length) => clientReceived.push(...data.subarray(offset, offset + length)),
  });
  let now = 0;
  const step = (seconds: number): void => {
    for (const end = now + seconds; now < end; ) {
      now += 1 / 60;
      server.update(now);
      client.update(now);
    }
  };
  client.connect(tokenBytes, now);
  step(0.5);
  if (client.state === gw.ClientState.Connected) {
    client.send(Uint8Array.of(1, 2, 3));
    server.send(client.clientIndex, Uint8Array.of(9, 8));
    step(0.25);
  }
  return {
    aead: gw.defaultAead().name,
    codegen: gw.codegenAvailable(),
    schema,
    token,
    handshake: {
      state: client.state,
      described: gw.describeClientState(client.state),
      serverReceived,
      clientReceived,
    },
  };
}

/**
 * Asserts what {@link browserScenario} returned, in Node: the bytes match Node's own codec, and
 * the token sealed by the pure-JS AEAD in the other realm opens with node:crypto's.
 */
export function checkScenarioResult(result: ScenarioResult, input: ScenarioInput): void {
  assert.equal(result.aead, ghostwire.nobleAead.name, 'the bundle registers the pure-JS AEAD');

  // The same scenario run here, in Node, on the sources: the same bytes.
  const inNode = browserScenario(ghostwire, input);
  assert.equal(result.schema.compiledHex, inNode.schema.compiledHex, 'the same bytes as in Node');
  assert.equal(result.schema.interpretedHex, inNode.schema.compiledHex);
  assert.equal(result.schema.error, '');
  assert.ok(result.schema.ok && result.schema.value !== null);
  const { position, ...rest } = result.schema.value;
  assert.deepEqual(rest, {
    name: 'zoë 🚀',
    score: -17,
    session: 0xfedcba9876543210n.toString(),
    alive: true,
  });
  position.forEach((x, i) => {
    assert.ok(Math.abs(x - [1.5, -99.99, 42][i]) <= 0.005 + 1e-9, `position[${i}] = ${x}`);
  });

  const { token } = result;
  assert.deepEqual(
    { ...token, hex: token.hex.length, truncatedReason: undefined },
    {
      hex: 2 * CONNECT_TOKEN_BYTES,
      ok: true,
      reason: '',
      protocolId: '1122334455667788',
      expireTimestamp: input.unixNow + 30,
      timeoutSeconds: 5,
      serverAddresses: [input.serverAddress],
      truncatedReason: undefined,
    },
  );
  assert.match(token.truncatedReason, /exactly 2048 bytes/);
  const read = readConnectToken(fromHex(token.hex));
  assert.ok(read.ok);
  const sealed = read.token.privateData.slice();
  const associated = privateAssociatedData(read.token.protocolId, read.token.expireTimestamp);
  const key = Uint8Array.from(input.privateKey);
  assert.ok(
    decryptConnectTokenPrivate(sealed, associated, read.token.nonce, key, nodeAead),
    'opens under node:crypto',
  );
  const opened = readConnectTokenPrivate(sealed);
  assert.ok(opened !== null);
  assert.equal(opened.clientId, 42n);
  assert.deepEqual(opened.clientToServerKey, read.token.clientToServerKey);
  assert.deepEqual(opened.serverToClientKey, read.token.serverToClientKey);

  assert.deepEqual(result.handshake, {
    state: ClientState.Connected,
    described: describeClientState(ClientState.Connected),
    serverReceived: [1, 2, 3],
    clientReceived: [9, 8],
  });
}
