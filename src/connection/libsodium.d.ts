/**
 * The `libsodium` package ships no types. Its ESM build's default export instantiates the
 * WebAssembly module; `aead-wasm.ts` types the raw exports it calls.
 */
declare module 'libsodium' {
  export default function instantiate(options: { getRandomValue(): number }): Promise<unknown>;
}
