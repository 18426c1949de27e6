/** The two-connection harness lives with the channel soak, which uses it too. */
export { channelPair as messagePair } from '../../scripts/channel-soak-core.js';
