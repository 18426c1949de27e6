/**
 * The AEAD the Node entry points (`ghostwire/node`, `ghostwire/websocket`, `ghostwire/webrtc`,
 * `ghostwire/services`) make the default, registered once when this module loads: libsodium's
 * WebAssembly ChaCha20-Poly1305 ({@link loadWasmAead}, ~5x cheaper per packet than node:crypto),
 * or node:crypto's where it cannot load. Loading is asynchronous, so this module has a top-level
 * await: whatever imports it starts after the choice is made, and every Server and Client built
 * afterwards gets it without waiting. Node only (it imports the node:crypto backend).
 */
import { type Aead, registerDefaultAead } from './aead.js';
import { nodeAead } from './aead-node.js';
import { loadWasmAead } from './aead-wasm.js';

/** The fastest backend that loaded here: libsodium's WebAssembly one, else node:crypto's. */
export const nodeDefaultAead: Aead = await loadWasmAead().catch(() => nodeAead);

registerDefaultAead(nodeDefaultAead);
