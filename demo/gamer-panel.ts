/**
 * The page's side of the demo's gamer services: it signs in with the device id it keeps in
 * localStorage (the same account after a reload), so its zaps count for that account. A server
 * without them (the zoned demo) answers 404: the page then plays as a guest of the game.
 */
import { BackendClient, GamerClient, storedDeviceId } from '../src/browser.js';

export interface DemoAccount {
  readonly gamer: GamerClient;
  readonly accountId: string;
  /** For the join request's Authorization header. */
  readonly session: string;
}

/** Signs in to the demo's /api, or null when the server has no gamer services or refuses. */
export async function signInToDemo(status: { accountId: string | null }): Promise<DemoAccount | null> {
  const gamer = new GamerClient(
    new BackendClient({ url: new URL('/api', location.href).href, timeoutMs: 5000 }),
  );
  try {
    const { accountId, session } = await gamer.accounts.signIn({ device: storedDeviceId() });
    status.accountId = accountId;
    return { gamer, accountId, session };
  } catch {
    return null; // no gamer services here, or no localStorage: play as a guest
  }
}

/** What the page reports about its gamer panel (read by the Chromium test). */
export interface GamerPanelStatus {
  /** The zaps leaderboard's top rows as shown: "rank name score". */
  leaderboard: string[];
  /** This account's rank and score (null before its first hit). */
  mine: { rank: number; score: number } | null;
  /** Leaderboard refreshes that failed. */
  failures: number;
}

const REFRESH_MS = 2000;

/** The zaps leaderboard beside the arena, refreshed every 2 s; this account's row marked. */
export function installGamerPanel(account: DemoAccount, root: HTMLElement): GamerPanelStatus {
  const status: GamerPanelStatus = { leaderboard: [], mine: null, failures: 0 };
  const panel = document.createElement('section');
  panel.id = 'gamer-panel';
  const title = document.createElement('h3');
  title.textContent = 'Zaps leaderboard';
  const list = document.createElement('ol');
  list.id = 'leaderboard';
  const mine = document.createElement('p');
  mine.id = 'my-rank';
  panel.append(title, list, mine);
  root.append(panel);
  const refresh = async () => {
    try {
      const [top, near] = await Promise.all([
        account.gamer.leaderboards.top('zaps', { limit: 10 }),
        account.gamer.leaderboards.around('zaps', { limit: 1 }),
      ]);
      status.leaderboard = top.records.map((r) => `${r.rank} ${r.displayName ?? 'guest'} ${r.score}`);
      list.replaceChildren(
        ...top.records.map((r) => {
          const item = document.createElement('li');
          item.value = r.rank;
          item.textContent = `${r.displayName ?? 'guest'} — ${r.score}`;
          if (r.accountId === account.accountId) item.style.color = '#7dffa0';
          return item;
        }),
      );
      const own = near.records.find((r) => r.accountId === account.accountId);
      status.mine = own === undefined ? null : { rank: own.rank, score: own.score };
      mine.textContent =
        own === undefined ? 'Zap an orb to get on the board.' : `You: #${own.rank} with ${own.score} zaps`;
    } catch {
      status.failures++;
    }
  };
  void refresh();
  setInterval(refresh, REFRESH_MS);
  return status;
}
