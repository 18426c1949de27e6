/**
 * The replicated world `npm start` plays: an arena of wandering orbs and one avatar per bot, each
 * bot steering its own avatar with a command and seeing the orbs within its interest radius. The
 * server's world is the only truth; each bot's ClientMirror is checked against it at the end.
 */

import {
  ClientMirror,
  defineCommand,
  defineEntity,
  type Entity,
  type Ghost,
  prng,
  ReplicationServer,
  ServerWorld,
  t,
} from '../src/index.js';

export const ARENA = 200; // metres, square
const ORBS = 400;
const RADIUS = 40;
const CAPACITY = 512;
const coordinate = t.float(0, ARENA, 1 / 64);

export const Orb = defineEntity('orb', t.object({ x: coordinate, y: coordinate, glow: t.int(0, 15) }), {
  position: (v) => [v.x, v.y],
});
export const Avatar = defineEntity(
  'avatar',
  t.object({ x: coordinate, y: coordinate, bot: t.int(0, 63), score: t.uint16() }),
  { position: (v) => [v.x, v.y], priority: 4 },
);
/** A bot's intent for its own avatar: a step of at most 0.5 m a tick each way (the server clamps nothing: the schema does). */
export const Steer = defineCommand(
  'steer',
  t.object({ dx: t.float(-0.5, 0.5, 1 / 64), dy: t.float(-0.5, 0.5, 1 / 64) }),
  {
    target: Avatar,
  },
);
const types = [Orb, Avatar];

type OrbValue = { x: number; y: number; glow: number };
type AvatarValue = { x: number; y: number; bot: number; score: number };

const clamp = (v: number) => Math.min(ARENA, Math.max(0, v));

/** The server's side: the world, its replication channel, and the orbs' motion. */
export class Arena {
  readonly world = new ServerWorld({ types, capacity: CAPACITY });
  readonly replication = new ReplicationServer({
    world: this.world,
    maxClients: 64,
    interest: { grid: { min: [0, 0], max: [ARENA, ARENA], cellSize: RADIUS / 2 }, radius: RADIUS },
    commands: { ratePerSecond: 90, burst: 10 },
    // Each bot's ghost section gets 96 kbit/s while its link is good, 24 while RTT > 250 ms or loss > 10%.
    bandwidth: { kbps: 96 },
    flow: { badKbps: 24 },
  });
  private readonly orbs: Entity<OrbValue>[] = [];
  private readonly heading: number[] = [];
  private readonly avatars = new Map<number, Entity<AvatarValue>>();
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = prng(seed);
    for (let i = 0; i < ORBS; i++) {
      this.orbs.push(
        this.world.create(Orb, { x: this.random() * ARENA, y: this.random() * ARENA, glow: i & 15 }),
      );
      this.heading.push(this.random() * 2 * Math.PI);
    }
    this.replication.commands.on(Steer, {
      run: (_client, steer, entity) => {
        const v = this.world.get(entity);
        this.world.set(entity, { ...v, x: clamp(v.x + steer.dx), y: clamp(v.y + steer.dy) });
      },
    });
  }

  /** A connected bot's avatar: created on its first call, owned by it, followed by its view. */
  avatarOf(clientIndex: number, bot: number): Entity<AvatarValue> {
    let avatar = this.avatars.get(clientIndex);
    if (avatar === undefined || !this.world.isAlive(avatar)) {
      avatar = this.world.create(Avatar, { x: ARENA / 2, y: ARENA / 2, bot, score: 0 });
      this.world.setOwner(avatar, clientIndex);
      this.avatars.set(clientIndex, avatar);
    }
    const view = this.replication.view(clientIndex);
    if (view !== null && view.follow !== avatar.id) view.follow = avatar.id;
    return avatar;
  }

  /** One simulation step: a third of the orbs wander (the rest rest), an orb an avatar touches scores. */
  step(): void {
    for (let i = 0; i < this.orbs.length; i++) {
      if (this.random() > 0.33) continue;
      const orb = this.orbs[i];
      const v = this.world.get(orb);
      this.heading[i] += (this.random() - 0.5) * 0.4;
      const x = v.x + Math.cos(this.heading[i]) * 0.2;
      const y = v.y + Math.sin(this.heading[i]) * 0.2;
      if (x < 0 || x > ARENA || y < 0 || y > ARENA) this.heading[i] += Math.PI;
      this.world.set(orb, { x: clamp(x), y: clamp(y), glow: v.glow });
    }
    for (const avatar of this.avatars.values()) {
      if (!this.world.isAlive(avatar)) continue;
      const a = this.world.get(avatar);
      const hit = this.orbs.find((orb) => {
        const o = this.world.get(orb);
        return Math.abs(o.x - a.x) < 1 && Math.abs(o.y - a.y) < 1;
      });
      if (hit !== undefined) {
        const o = this.world.get(hit);
        this.world.set(hit, {
          ...o,
          x: this.random() * ARENA,
          y: this.random() * ARENA,
          glow: (o.glow + 1) & 15,
        });
        this.world.set(avatar, { ...a, score: (a.score + 1) & 0xffff });
      }
    }
    this.world.tick();
  }

  /**
   * Ghosts in `mirror` that differ from what the server holds for the client's relevant entities
   * (wrong type, generation or quantized value, missing, or left behind): 0 when in sync.
   */
  mismatches(clientIndex: number, mirror: ClientMirror): number {
    const view = this.replication.view(clientIndex);
    let wrong = 0;
    for (let id = 0; id < CAPACITY; id++) {
      const entity = this.world.entity(id);
      const ghost = mirror.ghost(id);
      const relevant = entity !== null && view?.has(id) === true;
      if (!relevant || entity === null) {
        if (ghost !== null) wrong++;
        continue;
      }
      if (ghost === null || ghost.type !== entity.type || ghost.generation !== entity.generation) wrong++;
      else if (JSON.stringify(ghost.value) !== JSON.stringify(this.world.get(entity))) wrong++;
    }
    return wrong;
  }
}

/** A bot's side: its mirror, and the way it steers (a circle of its own, so bots spread out). */
export class ArenaBot {
  readonly mirror = new ClientMirror({ types, capacity: CAPACITY });
  private avatarId = -1;

  constructor(private readonly bot: number) {}

  /** The bot's own avatar, once its ghost arrived (found by its `bot` field, then by its id). */
  avatar(): Ghost<AvatarValue> | null {
    const known = this.avatarId < 0 ? null : this.mirror.ghost(this.avatarId);
    if (known !== null && known.type === Avatar) return known as Ghost<AvatarValue>;
    for (let id = 0; id < CAPACITY; id++) {
      const ghost = this.mirror.ghost(id) as Ghost<AvatarValue> | null;
      if (ghost !== null && ghost.type === Avatar && ghost.value.bot === this.bot) {
        this.avatarId = id;
        return ghost;
      }
    }
    return null;
  }

  /** This tick's steer toward a point on the bot's circle. */
  steer(time: number, avatar: Ghost<AvatarValue>): { dx: number; dy: number } {
    const angle = time * 0.3 + (this.bot * 2 * Math.PI) / 8;
    const r = 30 + 8 * (this.bot % 8);
    const tx = ARENA / 2 + r * Math.cos(angle);
    const ty = ARENA / 2 + r * Math.sin(angle);
    const step = (d: number) => Math.max(-0.5, Math.min(0.5, d));
    return { dx: step(tx - avatar.value.x), dy: step(ty - avatar.value.y) };
  }
}
