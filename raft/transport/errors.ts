// Owns: the typed operating errors of raft/transport (STYLE rule 8): bytes that are not a Raft
// message batch, and names that cannot form a NATS subject.

export const TransportErrorCodes = {
  Codec: 'CODEC',
  InvalidName: 'INVALID_NAME',
} as const;
export type TransportErrorCode = (typeof TransportErrorCodes)[keyof typeof TransportErrorCodes];

/** Received bytes are not a valid encoded batch of Raft messages (garbage, truncation, wrong version). */
export class CodecError extends Error {
  readonly code = TransportErrorCodes.Codec;

  constructor(detail: string, options?: ErrorOptions) {
    super(`raft codec: ${detail}`, options);
    this.name = 'CodecError';
  }
}

/** A cluster, group or member name that is not a single NATS subject token. */
export class InvalidNameError extends Error {
  readonly code = TransportErrorCodes.InvalidName;

  constructor(what: string, value: string) {
    super(`${what} ${JSON.stringify(value)} must match ${subjectTokenPattern} (one NATS subject token)`);
    this.name = 'InvalidNameError';
  }
}

/** Names that are safe as one NATS subject token: no dots, wildcards or whitespace. */
export const subjectTokenPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function isCodecError(error: unknown): error is CodecError {
  return error instanceof CodecError;
}
