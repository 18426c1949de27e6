/**
 * Part of the Directory contract, registered apart (directory-contract.test.ts): a process record
 * or heartbeat the caller got wrong throws RangeError, from every directory alike, and stores nothing.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ProcessState } from '../../src/services/directory.js';
import {
  type ContractOptions,
  type ContractSubject,
  LOAD,
  type MakeSubject,
  processRecord,
} from './directory-contract.js';

export function directoryMisuseContract(name: string, make: MakeSubject, options: ContractOptions): void {
  describe(`Directory contract (misuse): ${name}`, { skip: options.skip ?? false }, () => {
    let subject: ContractSubject | null = null;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject?.close();
      subject = null;
    });

    it('refuses a process record with an unknown state or a maxRooms that is not a whole number', async () => {
      assert.ok(subject !== null);
      const { directory, peer } = subject;
      for (const bad of [
        { state: 'running' as ProcessState },
        { state: '' as ProcessState },
        { maxRooms: 2.5 },
        { maxRooms: -1 },
        { maxRooms: Number.NaN },
        { maxRooms: Number.POSITIVE_INFINITY },
      ])
        await assert.rejects(
          directory.registerProcess({ ...processRecord('p1'), ...bad }, 10_000),
          RangeError,
          JSON.stringify(bad),
        );
      assert.equal(await peer.getProcess('p1'), null, 'nothing was registered');
      await directory.registerProcess({ ...processRecord('p1'), maxRooms: 0 }, 10_000);
      assert.equal((await peer.getProcess('p1'))?.maxRooms, 0);
    });

    it('refuses a heartbeat with an unknown state, and keeps the state it had', async () => {
      assert.ok(subject !== null);
      const { directory, peer } = subject;
      await directory.registerProcess(processRecord('p1'), 10_000);
      await assert.rejects(directory.heartbeat('p1', 'stopped' as ProcessState, LOAD, 10_000), RangeError);
      assert.equal((await peer.getProcess('p1'))?.state, 'ready');
      assert.equal(await directory.heartbeat('p1', 'draining', LOAD, 10_000), true);
      assert.equal((await peer.getProcess('p1'))?.state, 'draining');
    });
  });
}
