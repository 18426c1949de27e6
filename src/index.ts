/**
 * `ghostwire`: what a game needs, browser-safe (no `node:` imports). The expert layers underneath
 * have their own entry points (`ghostwire/replication`, `ghostwire/latency`, `ghostwire/p2p`, …);
 * the Node parts are in `ghostwire/node`. Every name here is a promise: keep this list short
 * (test/architecture.test.ts caps it at 100 names).
 */

// game API

// The schema builder: a game declares its entity states and inputs with it.
export { type Infer, type Schema, SchemaValueError, t } from './schema/index.js';
