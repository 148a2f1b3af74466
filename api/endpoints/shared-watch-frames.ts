// Owns: the encoded watch frames of the latest events, shared by every watch that sends the same
// object as the same event type in the same wire encoding: a thousand watchers of one namespace
// encode each event once, not once each — and frame it once as an HTTP/1.1 chunk (size line,
// data, CRLF in one buffer), so each watcher's write is one buffer handed to its socket as is.
// Bounded (the most recent objects only); a frame that has left it is encoded again, so a
// lagging watcher costs CPU, never correctness.
import type { KubeObject } from '../../actors/index.ts';

/** Objects whose frames are kept: the watchers of an event send it within a few events of each other. */
export const sharedFrameObjectsMax = 256;

/** A kept frame, and the same bytes framed as one chunk of a chunked HTTP/1.1 body once asked for. */
interface KeptFrame {
  readonly frame: Buffer;
  chunk?: Buffer;
}

/**
 * `parts` in order as one chunk of a chunked HTTP/1.1 body (RFC 9112 §7.1): hex size, CRLF, the
 * data, CRLF, in one buffer. Empty data has no chunk: a zero-size chunk ends the body.
 */
export function httpChunk(parts: readonly (string | Buffer)[]): Buffer {
  const buffers = parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part));
  let size = 0;
  for (const buffer of buffers) size += buffer.length;
  if (size === 0) throw new RangeError('an empty chunk would end a chunked body');
  const head = `${size.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + size + 2);
  let offset = chunk.write(head, 0, 'latin1');
  for (const buffer of buffers) offset += buffer.copy(chunk, offset);
  chunk.write('\r\n', offset, 'latin1');
  return chunk;
}

export class SharedWatchFrames {
  readonly #objectsMax: number;
  /** Insertion order is age: the first entry is evicted first. */
  readonly #frames = new Map<KubeObject, Map<string, KeptFrame>>();

  constructor(objectsMax: number = sharedFrameObjectsMax) {
    this.#objectsMax = objectsMax;
  }

  /** The frame of `object` under `variant` (event type and wire encoding), encoded by `encode` when not kept. */
  frame(object: KubeObject, variant: string, encode: () => string | Buffer): Buffer {
    return this.#kept(object, variant, encode).frame;
  }

  /** The frame of `object` under `variant` as one HTTP/1.1 chunk (httpChunk), framed once for every watcher. */
  chunk(object: KubeObject, variant: string, encode: () => string | Buffer): Buffer {
    const kept = this.#kept(object, variant, encode);
    kept.chunk ??= httpChunk([kept.frame]);
    return kept.chunk;
  }

  #kept(object: KubeObject, variant: string, encode: () => string | Buffer): KeptFrame {
    let variants = this.#frames.get(object);
    const kept = variants?.get(variant);
    if (kept !== undefined) return kept;
    const encoded = encode();
    const entry: KeptFrame = { frame: typeof encoded === 'string' ? Buffer.from(encoded) : encoded };
    if (variants === undefined) {
      variants = new Map();
      this.#frames.set(object, variants);
      if (this.#frames.size > this.#objectsMax) this.#frames.delete(this.#frames.keys().next().value as KubeObject);
    }
    variants.set(variant, entry);
    return entry;
  }

  get size(): number {
    return this.#frames.size;
  }
}
