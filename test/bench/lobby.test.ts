import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateLobby, type Lobby } from '../../bench/lobby/data.js';
import { lobbyCodec, lobbyInterpreted } from '../../bench/lobby/schema.js';
import { serializeLobby } from '../../bench/lobby/stream.js';
import { MeasureStream, ReadStream, WriteStream } from '../../src/serialize/index.js';

function streamBytes(lobby: Lobby): Uint8Array {
  const w = new WriteStream(64 * 1024);
  serializeLobby(w, lobby);
  return w.finish().slice();
}

describe('lobby workload (issue 16)', () => {
  const lobby = generateLobby();

  it('holds multi-byte names, absent and present parties, empty and full inventories', () => {
    const names = lobby.players.map((p) => p.name);
    assert.ok(names.some((n) => new TextEncoder().encode(n).length > n.length));
    assert.ok(names.every((n) => n.length >= 3 && n.length <= 16));
    assert.ok(lobby.players.some((p) => p.party === undefined));
    assert.ok(lobby.players.some((p) => p.party !== undefined));
    assert.ok(lobby.players.some((p) => p.inventory.length === 0));
    assert.ok(lobby.players.some((p) => p.inventory.length === 8));
  });

  it('the compiled schema, the interpreter and the hand-written unified stream write the same bytes', () => {
    const expected = streamBytes(lobby);
    assert.deepEqual(lobbyCodec.encode(lobby).slice(), expected);
    assert.deepEqual(lobbyInterpreted.encode(lobby).slice(), expected);
    const m = new MeasureStream();
    serializeLobby(m, lobby);
    // Measuring counts each align at its worst (7 bits), so it bounds the size from above.
    assert.ok((m.bitsProcessed + 7) >>> 3 >= expected.length);
  });

  it('strings are a length, an align, then the bytes', () => {
    const one: Lobby = {
      players: [{ name: 'aé', team: 'blue', score: 5, ready: true, inventory: [], x: 0, y: 0, heading: 0 }],
    };
    const bytes = lobbyCodec.encode(one);
    // count (10 bits: 0..512) = 1, name length (6 bits: 0..48) = 3, then aligned to byte 2.
    assert.equal(bytes[0] | ((bytes[1] & 0x03) << 8), 1);
    assert.equal(bytes[1] >>> 2, 3);
    assert.deepEqual([...bytes.subarray(2, 5)], [0x61, 0xc3, 0xa9]);
  });

  it('every path reads back what the stream wrote', () => {
    const bytes = streamBytes(lobby);
    const fresh = lobbyCodec.decode(bytes);
    assert.ok(fresh.ok);
    const interpreted = lobbyInterpreted.decode(bytes);
    assert.ok(interpreted.ok);
    const viaStream: Lobby = { players: [] };
    const r = new ReadStream();
    r.reset(bytes);
    serializeLobby(r, viaStream);
    assert.ok(r.end(), String(r.error));
    assert.deepEqual(fresh.value, viaStream);
    assert.deepEqual(interpreted.value, viaStream);
    assert.deepEqual(
      viaStream.players.map((p) => [p.name, p.team, p.score, p.ready, p.party, p.inventory]),
      lobby.players.map((p) => [p.name, p.team, p.score, p.ready, p.party, p.inventory]),
    );
  });
});
