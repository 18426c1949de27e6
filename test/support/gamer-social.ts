/**
 * Helpers for the friends, presence and event stream tests: players (an account row each and a
 * session naming it) and an event stream reader over the backend's app (no socket).
 */
import { sql } from 'kysely';
import type { BackendOptions } from '../../src/services/backend.js';
import type { GamerEvent } from '../../src/services/gamer/player-events.js';
import type { GamerHarness, GamerKit, KitOptions } from './gamer-kit.js';

export interface Player {
  id: string;
  session: string;
}

/** The backend options that sign a session in as the account named in { name }. */
export const signInAsName: Partial<BackendOptions> = {
  verify: async (body: unknown) => ({ userId: (body as { name: string }).name }),
};

export function openSocial(kit: GamerKit, options: KitOptions = {}, backend: Partial<BackendOptions> = {}) {
  return kit.open(options, { ...signInAsName, ...backend });
}

/** `count` players named `<prefix>0..`, each with an account row and a session. */
export async function makePlayers(
  harness: GamerHarness,
  kit: GamerKit,
  count: number,
  prefix = 'p',
): Promise<Player[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  const values = ids.map((id) => sql`(${id}, ${`Name ${id}`}, ${id.toLowerCase()}, 0, 0)`);
  await sql`insert into accounts (id, display_name, display_key, created_at, updated_at) values ${sql.join(values)}`.execute(
    kit.database.db,
  );
  return Promise.all(
    ids.map(async (id) => {
      const answer = await harness.call<{ session: string }>('POST', '/auth', { body: { name: id } });
      if (answer.status !== 200)
        throw new Error(`auth ${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return { id, session: answer.body.session };
    }),
  );
}

/** Makes `a` and `b` friends through the routes. */
export async function befriend(harness: GamerHarness, a: Player, b: Player): Promise<void> {
  const sent = await harness.call('POST', `/friends/${b.id}`, { session: a.session });
  const accepted = await harness.call('POST', `/friends/${a.id}`, { session: b.session });
  if (sent.status !== 200 || accepted.body.state !== 'friends')
    throw new Error(`befriend ${a.id} ${b.id}: ${JSON.stringify([sent, accepted])}`);
}

export interface EventReader {
  readonly status: number;
  readonly events: GamerEvent[];
  /** True once the stream ended (closed by the server, cut, or an error). */
  readonly ended: boolean;
  /** The first event (from the start) passing `test`, waiting up to `timeoutMs`. */
  next(test: (event: GamerEvent) => boolean, timeoutMs?: number): Promise<GamerEvent>;
  /** Resolves when the stream ends, rejects after `timeoutMs`. */
  end(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens GET /events as `player`; `read: false` leaves the body unread (a stalled reader). */
export async function openEvents(
  harness: GamerHarness,
  player: Player,
  options: { read?: boolean } = {},
): Promise<EventReader & { body: unknown }> {
  const response = await harness.backend.app.request('/events', {
    headers: { Authorization: `Bearer ${player.session}` },
  });
  const events: GamerEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = response.status !== 200 || response.body === null;
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  let body: unknown = null;
  if (response.status !== 200) body = await response.json();
  else if (options.read !== false && response.body !== null) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += decoder.decode(value, { stream: true });
          let cut = buffered.indexOf('\n\n');
          while (cut >= 0) {
            const block = buffered.slice(0, cut);
            buffered = buffered.slice(cut + 2);
            for (const line of block.split('\n'))
              if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as GamerEvent);
            cut = buffered.indexOf('\n\n');
          }
          wake();
        }
      } catch {
        // cut by the server
      }
      ended = true;
      wake();
    })();
    body = reader;
  } else body = response.body;
  const wait = (ready: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (ready()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}`));
      }, timeoutMs);
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });
  return {
    status: response.status,
    events,
    body,
    get ended() {
      return ended;
    },
    async next(test, timeoutMs = 3000) {
      await wait(() => events.some(test), timeoutMs, 'an event');
      return events.find(test) as GamerEvent;
    },
    async end(timeoutMs = 3000) {
      await wait(() => ended, timeoutMs, 'the stream to end');
    },
    async close() {
      if (body !== null && typeof (body as ReadableStreamDefaultReader).cancel === 'function')
        await (body as ReadableStreamDefaultReader).cancel().catch(() => {});
      else if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    },
  };
}
