/**
 * The embedded directory's index of the sessions each user made (what the per-user cap counts)
 * stays bounded: a session leaves it when it ends, and a user with none left is forgotten by the
 * sweep — sessions now count until they end, so the index must not keep ended ones either.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedPeerSessions } from '../../src/services/embedded-peer-sessions.js';

function indexOf(sessions: EmbeddedPeerSessions): Map<string, Set<string>> {
  return (sessions as unknown as { created: Map<string, Set<string>> }).created;
}

describe('embedded peer sessions: the per-user index', () => {
  it('holds a session until it ends, and forgets a user whose sessions all ended', () => {
    let now = 0;
    const sessions = new EmbeddedPeerSessions(() => now);
    for (let u = 0; u < 100; u++)
      for (let s = 0; s < 3; s++) {
        const id = `u${u}s${s}`;
        assert.equal(sessions.create(id, 2, `user${u}`, 1000, 3), 'created');
        assert.ok(sessions.take(id, 'keeper', 1000).ok);
        assert.equal(sessions.leave(id, `user${u}`, 10), true);
      }
    assert.equal(sessions.create('more', 2, 'user0', 1000, 3), 'limit', 'held by another: still counted');
    assert.equal(indexOf(sessions).size, 100);
    now = 500;
    sessions.sweep();
    assert.equal(indexOf(sessions).size, 100, 'alive: the keeper holds them');
    now = 1000;
    sessions.sweep();
    assert.equal(indexOf(sessions).size, 0, 'every session lapsed');
    assert.equal(sessions.create('more', 2, 'user0', 1000, 3), 'created');
    assert.deepEqual([...(indexOf(sessions).get('user0') ?? [])], ['more']);
  });
});
