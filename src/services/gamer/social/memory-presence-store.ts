/** Presence in this process: one backend, nothing installed. Records end when nothing holds them. */
import type { PresenceOp, PresenceState, PresenceStore, PresenceView } from './presence-store.js';
import { OFFLINE } from './presence-store.js';

interface PresenceRecord {
  connectedUntil: number;
  chosen: 'online' | 'away';
  roomId: string | null;
  roomUntil: number;
  shown: PresenceView;
}

export class MemoryPresenceStore implements PresenceStore {
  private readonly records = new Map<string, PresenceRecord>();

  async apply(
    accountId: string,
    op: PresenceOp,
    nowMs: number,
  ): Promise<{ view: PresenceView; changed: boolean }> {
    let record = this.records.get(accountId);
    if (record === undefined) {
      record = { connectedUntil: 0, chosen: 'online', roomId: null, roomUntil: 0, shown: OFFLINE };
    }
    switch (op.kind) {
      case 'connect':
        record.connectedUntil = op.untilMs;
        break;
      case 'disconnect':
        record.connectedUntil = 0;
        break;
      case 'choose':
        record.chosen = op.state;
        break;
      case 'match':
        record.roomId = op.roomId;
        record.roomUntil = op.roomId === null ? 0 : op.untilMs;
        break;
    }
    const before = record.shown;
    const now = shown(record, nowMs);
    let changed = false;
    if (now.state !== before.state || now.roomId !== before.roomId) {
      record.shown = { ...now, seq: Math.max(before.seq + 1, nowMs), at: nowMs };
      changed = true;
    }
    if (record.connectedUntil <= nowMs && (record.roomId === null || record.roomUntil <= nowMs))
      this.records.delete(accountId); // offline: its seq restarts from the clock, still above
    else this.records.set(accountId, record);
    return { view: record.shown, changed };
  }

  async read(accountIds: readonly string[], nowMs: number): Promise<PresenceView[]> {
    return accountIds.map((id) => {
      const record = this.records.get(id);
      if (record === undefined) return OFFLINE;
      const now = shown(record, nowMs);
      return now.state === record.shown.state ? record.shown : { ...now, seq: record.shown.seq, at: nowMs };
    });
  }

  async close(): Promise<void> {
    this.records.clear();
  }
}

function shown(record: PresenceRecord, nowMs: number): { state: PresenceState; roomId: string | null } {
  if (record.roomId !== null && record.roomUntil > nowMs) return { state: 'in-match', roomId: record.roomId };
  if (record.connectedUntil > nowMs) return { state: record.chosen, roomId: null };
  return { state: 'offline', roomId: null };
}
