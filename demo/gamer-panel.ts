/**
 * The page's side of the demo's gamer services: it signs in with the device id it keeps in
 * localStorage (the same account after a reload), so its zaps count for that account. A server
 * without them (the zoned demo: the page knows it by its zone grid) is not asked: the page plays as
 * a guest of the game.
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
    // A first visit picks a name ("Player 1234"; another on the rare clash) for the board.
    if ((await gamer.accounts.get()).displayName === null)
      for (let attempt = 0; attempt < 3; attempt++) {
        const name = `Player ${1000 + Math.floor(Math.random() * 9000)}`;
        const renamed = await gamer.accounts.rename(name).catch(() => null);
        if (renamed !== null) break;
      }
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
  /** This account's friends as shown: "name state" (state: in-match, online, away, offline). */
  friends: string[];
  /** Friend requests this account received and has not answered. */
  requests: number;
  /** Refreshes that failed. */
  failures: number;
}

const REFRESH_MS = 2000;

/**
 * The zaps leaderboard beside the arena, refreshed every 2 s, this account's row marked and the
 * others' with a button asking them as friends (the bots accept); below it the friends, each with
 * where it is (in the arena, online, offline), and the requests received, kept current by the
 * account's event stream.
 */
export function installGamerPanel(account: DemoAccount, root: HTMLElement): GamerPanelStatus {
  const status: GamerPanelStatus = { leaderboard: [], mine: null, friends: [], requests: 0, failures: 0 };
  const friendIds = new Set<string>();
  const panel = document.createElement('section');
  panel.id = 'gamer-panel';
  const title = document.createElement('h3');
  title.textContent = 'Zaps leaderboard';
  const list = document.createElement('ol');
  list.id = 'leaderboard';
  const mine = document.createElement('p');
  mine.id = 'my-rank';
  const friendsTitle = document.createElement('h3');
  friendsTitle.textContent = 'Friends';
  const friends = document.createElement('ul');
  friends.id = 'friends';
  const requests = document.createElement('ul');
  requests.id = 'friend-requests';
  panel.append(title, list, mine, friendsTitle, friends, requests);
  root.append(panel);
  const refreshFriends = async () => {
    try {
      const [mutual, received] = await Promise.all([
        account.gamer.friends.list('friends', { limit: 50 }),
        account.gamer.friends.list('received', { limit: 20 }),
      ]);
      friendIds.clear();
      for (const f of mutual.items) friendIds.add(f.accountId);
      status.friends = mutual.items.map(
        (f) => `${f.displayName ?? 'guest'} ${f.presence?.state ?? 'offline'}`,
      );
      friends.replaceChildren(
        ...(mutual.items.length === 0
          ? [line('No friends yet: ask someone on the board.')]
          : mutual.items.map((f) => {
              const where = f.presence?.state ?? 'offline';
              const item = line(
                `${f.displayName ?? 'guest'} — ${where === 'in-match' ? 'in the arena' : where}`,
              );
              item.dataset.state = where;
              return item;
            })),
      );
      status.requests = received.items.length;
      requests.replaceChildren(
        ...received.items.map((f) => {
          const item = line(`${f.displayName ?? 'guest'} asks to be your friend `);
          const accept = document.createElement('button');
          accept.textContent = 'Accept';
          accept.className = 'accept-friend';
          accept.onclick = () =>
            void account.gamer.friends.request(f.accountId).then(refreshFriends, () => {});
          item.append(accept);
          return item;
        }),
      );
    } catch {
      status.failures++;
    }
  };
  void refreshFriends();
  // Friends' presence and requests arrive as events; each one refreshes the list.
  account.gamer.events.subscribe((event) => {
    if (event.kind === 'presence' || event.kind === 'friend') void refreshFriends();
  });
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
          item.textContent = `${r.displayName ?? 'guest'} — ${r.score} `;
          if (r.accountId === account.accountId) item.style.color = '#7dffa0';
          else if (!friendIds.has(r.accountId)) {
            const ask = document.createElement('button');
            ask.textContent = '+ friend';
            ask.className = 'ask-friend';
            ask.dataset.account = r.accountId;
            ask.onclick = () => {
              ask.disabled = true;
              void account.gamer.friends.request(r.accountId).then(refreshFriends, () => {});
            };
            item.append(ask);
          }
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

function line(text: string): HTMLLIElement {
  const item = document.createElement('li');
  item.textContent = text;
  return item;
}
