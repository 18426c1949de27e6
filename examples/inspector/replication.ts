/**
 * docs/replication.md's "Inspector" example, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so
 * that tsc checks it.
 */
import type { ReplicationServer } from 'ghostwire/replication';

declare const replication: ReplicationServer;
declare const clientIndex: number;
declare const entityId: number;

// #region docs
const inspector = replication.inspect(); // the ReplicationServer's; made on first call
const stop = inspector.watch(clientIndex, (p) => {
  console.log(p.tick, p.bits.total, p.roomBits, p.budgetLimited);
  for (const e of p.entities) console.log(e.id, e.type, e.verdict, e.priority, e.distance, e.bits, e.waited);
});
inspector.whoSees(entityId); // [{ client: 3, state: 'live' }, …]
stop(); // the last stop detaches the trace
// #endregion
