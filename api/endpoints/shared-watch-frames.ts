// Owns: the encoded watch frames of the latest events, shared by every watch that sends the same
// object as the same event type in the same wire encoding: a thousand watchers of one namespace
// encode each event once, not once each. Bounded (the most recent objects only); a frame that
// has left it is encoded again, so a lagging watcher costs CPU, never correctness.
import type { KubeObject } from '../../actors/index.ts';

/** Objects whose frames are kept: the watchers of an event send it within a few events of each other. */
export const sharedFrameObjectsMax = 256;

export class SharedWatchFrames {
  readonly #objectsMax: number;
  /** Insertion order is age: the first entry is evicted first. */
  readonly #frames = new Map<KubeObject, Map<string, Buffer>>();

  constructor(objectsMax: number = sharedFrameObjectsMax) {
    this.#objectsMax = objectsMax;
  }

  /** The frame of `object` under `variant` (event type and wire encoding), encoded by `encode` when not kept. */
  frame(object: KubeObject, variant: string, encode: () => string | Buffer): Buffer {
    let variants = this.#frames.get(object);
    const kept = variants?.get(variant);
    if (kept !== undefined) return kept;
    const encoded = encode();
    const frame = typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
    if (variants === undefined) {
      variants = new Map();
      this.#frames.set(object, variants);
      if (this.#frames.size > this.#objectsMax) this.#frames.delete(this.#frames.keys().next().value as KubeObject);
    }
    variants.set(variant, frame);
    return frame;
  }

  get size(): number {
    return this.#frames.size;
  }
}
