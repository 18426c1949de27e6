import { defineMessage, MessageFactory } from '../../channels/message.js';
import { t } from '../../schema/schema.js';
import { TURN_MS_MAX, TURN_MS_MIN } from './lockstep-options.js';
import { MAX_PEERS } from './turn-list.js';

/**
 * The session's reliable-ordered messages (channel 0 of every PeerConnection): a late join, how late
 * lists arrive (for the host's turn length), and departures. Turn numbers are -1 ("none") up to 2^31 - 1.
 */
const turn = () => t.int(-1, 0x7fffffff);
const peer = () => t.int(0, MAX_PEERS - 1);

/** A peer outside the session asks to join (sent to every peer; the acting host answers). */
export const JoinRequest = defineMessage('lockstep.join', t.object({}));

/**
 * The host's answer, followed on the same channel by the state as a block: the state after
 * `turn`; the joiner's commands count from `fromTurn`; the session's table and turn length then.
 */
export const Welcome = defineMessage(
  'lockstep.welcome',
  t.object({
    turn: turn(),
    fromTurn: turn(),
    turnMs: t.int(TURN_MS_MIN, TURN_MS_MAX),
    random: t.uint32(),
    joinTurns: t.array(turn(), MAX_PEERS),
    leaveAfters: t.array(turn(), MAX_PEERS),
  }),
);

/** How late the others' lists reach a peer (ms, see TurnTiming), for the host's turn length. */
export const LatenessReport = defineMessage('lockstep.lateness', t.object({ ms: t.uint16() }));

/** A peer lost its link to `peer`, for `reason` (sent to the acting host, which then drops it). */
export const Lost = defineMessage(
  'lockstep.lost',
  t.object({ peer: peer(), reason: t.enum(['left', 'timedOut', 'dropped'] as const) }),
);

/** The host asks how far each survivor holds the leaver's lists, from `from` on. */
export const DepartureQuery = defineMessage('lockstep.query', t.object({ peer: peer(), from: turn() }));

/**
 * One of the leaver's lists (the turn-channel encoding), from a survivor to the host in reply to
 * a query, or from the host to everyone before the departure.
 */
export function forwardedList(maxListBytes: number) {
  return defineMessage(
    'lockstep.list',
    t.object({ peer: peer(), turn: turn(), list: t.bytes(maxListBytes) }),
  );
}

/** A survivor's answer after its forwarded lists: it holds every list up to `last`, ran up to `executed`. */
export const DepartureReply = defineMessage(
  'lockstep.reply',
  t.object({ peer: peer(), last: turn(), executed: turn() }),
);

/** The host's decision: `peer`'s commands count up to `afterTurn`, none after. */
export const Departure = defineMessage(
  'lockstep.departure',
  t.object({ peer: peer(), afterTurn: turn(), reason: t.enum(['left', 'timedOut', 'dropped'] as const) }),
);

/**
 * After a desync with the receiver: the CRC-32 of each peer's list for `turn` as the sender ran it
 * (0: none), so the receiver can say whose lists differed (a member that sent different lists to
 * different peers).
 */
export const ListDigests = defineMessage(
  'lockstep.digests',
  t.object({ turn: turn(), digests: t.array(t.uint32(), MAX_PEERS) }),
);

export function controlFactory(maxListBytes: number) {
  const Forward = forwardedList(maxListBytes);
  const factory = new MessageFactory([
    JoinRequest,
    Welcome,
    LatenessReport,
    Lost,
    DepartureQuery,
    Forward,
    DepartureReply,
    Departure,
    ListDigests,
  ]);
  return { factory, Forward };
}
