// Owns: what the end-to-end tests of @kubernetes/client-node share about its calls: a deadline on
// each call (a server that never answers fails the test with its log tail instead of hanging
// it), and reading the refusal of a call (its ApiException's code and parsed body).
import { ApiException } from '@kubernetes/client-node';

export interface ClientCalls {
  /** `call`, failing with `what` and the diagnostics if it has not settled in time. */
  within<T>(what: string, call: Promise<T>): Promise<T>;
  /** The rejection of `call`, which must be an ApiException; its body parsed when it is JSON text. */
  apiError(what: string, call: Promise<unknown>): Promise<{ code: number; body: unknown }>;
}

export function clientCalls(timeoutMs: number, diagnostics: () => string): ClientCalls {
  const within = async <T>(what: string, call: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms\n${diagnostics()}`)), timeoutMs);
    });
    try {
      return await Promise.race([call, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
  const apiError = async (what: string, call: Promise<unknown>): Promise<{ code: number; body: unknown }> => {
    const outcome = await within(what, call.then((value) => ({ value }), (error: unknown) => ({ error })));
    if (!('error' in outcome)) throw new Error(`${what}: expected an ApiException, the call succeeded with ${JSON.stringify(outcome.value)}`);
    const error = outcome.error;
    if (!(error instanceof ApiException)) throw error;
    const raw: unknown = error.body;
    let body: unknown = raw;
    if (typeof raw === 'string') {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    return { code: error.code, body };
  };
  return { within, apiError };
}
