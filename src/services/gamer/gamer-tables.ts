/**
 * The gamer services' tables as Kysely sees them (migrations/ makes them). Times are unix
 * milliseconds; ids are the accounts' own (`AccountId`).
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  display_name: string | null;
  display_key: string | null;
  registered: Generated<boolean>;
  banned_until: number | null;
  ban_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface AccountDevicesTable {
  device_id: string;
  account_id: string;
  created_at: number;
}

export interface AccountIdentitiesTable {
  provider: string;
  external_id: string;
  account_id: string;
  created_at: number;
}

export interface StatsTable {
  account_id: string;
  name: string;
  value: number;
  updated_at: number;
}

export interface AchievementsTable {
  account_id: string;
  id: string;
  unlocked_at: number;
}

export interface LeaderboardRecordsTable {
  board: string;
  period: number;
  account_id: string;
  score: number;
  updated_at: number;
}

export interface LeaderboardPeriodsTable {
  board: string;
  period: number;
  started_at: number;
  ended_at: number | null;
}

/** 0 friends, 1 request sent, 2 request received, 3 blocked. */
export interface FriendsTable {
  account_id: string;
  other_id: string;
  state: number;
  updated_at: number;
}

export interface StorageTable {
  account_id: string;
  collection: string;
  key: string;
  /** JSON text on the way in; the parsed value on the way out. */
  value: unknown;
  version: number;
  read: 'owner' | 'public';
  write: 'owner' | 'server';
  bytes: number;
  updated_at: number;
}

export interface GamerTables {
  accounts: AccountsTable;
  account_devices: AccountDevicesTable;
  account_identities: AccountIdentitiesTable;
  player_stats: StatsTable;
  achievements: AchievementsTable;
  leaderboard_records: LeaderboardRecordsTable;
  leaderboard_periods: LeaderboardPeriodsTable;
  friends: FriendsTable;
  storage: StorageTable;
}
