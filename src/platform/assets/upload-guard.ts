import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import type { UploadSlots } from './upload-slots';

export interface UploadLimits {
  /** Uploads one user may have in flight at once. */
  perUser: number;
  /** The least a body must deliver, averaged over each window; 0 turns the check off. */
  minBytesPerSecond: number;
  /** The grace period before the first check, and the span each later check averages over. */
  rateWindowMs: number;
}

/**
 * Guards `POST /v2/core/assets` against clients that hold a connection and a temporary file
 * without using them (H8): each user may have `perUser` uploads in flight (counted by `slots`,
 * across instances when they share Redis), and a body must arrive at `minBytesPerSecond` or more,
 * averaged over each `rateWindowMs` (the first window is the grace period). A slower upload is
 * aborted with a 408 through `signalOf`: whoever reads its body stops, its temporary file goes, and
 * the connection closes after the answer.
 *
 * The rate is read from the socket's byte count, so a body is judged by what the client sent,
 * whatever reads it (the multipart reader, or Fastify's JSON parser).
 *
 * Stays whole: admit, abortableBody and signalOf share the per-request signals of this closure.
 */
export function createUploadGuard(limits: UploadLimits, slots: UploadSlots, refusedBodyBytes: number) {
  const signals = new WeakMap<IncomingMessage, AbortSignal>();

  const tooSlow = () =>
    new ApiError(
      408,
      'upload_too_slow',
      `The upload arrived slower than ${limits.minBytesPerSecond} bytes per second over ` +
        `${limits.rateWindowMs / 1000} s; try again on a better connection.`,
      undefined,
      // The rest of the body is unread: close rather than wait for it.
      { connection: 'close' },
    );

  return {
    /** An `onRequest` hook, after authentication: refuses an upload beyond the user's cap, else watches it. */
    async admit(request: FastifyRequest, reply: FastifyReply) {
      // 'close' comes once the answer is sent or the connection is gone, whichever is first; it
      // may come while the place is being taken (in Redis), and the place must not outlive it.
      let closed = false;
      let end = () => {};
      reply.raw.once('close', () => {
        closed = true;
        end();
      });
      const slot = await slots.take(request.caller.userId);
      if (!slot.taken) {
        const whole = await discardBody(request.raw, refusedBodyBytes, limits);
        // 429 rather than 409: nothing about the resource conflicts, the user is simply doing too
        // much at once, and waiting (Retry-After) is the remedy, as with the other limits.
        throw new ApiError(
          429,
          'too_many_uploads',
          `You already have ${slot.running} uploads in progress, the most at once; wait for one to finish.`,
          undefined,
          { 'retry-after': '10', ...(whole ? {} : { connection: 'close' }) },
        );
      }
      if (closed) return slot.release();
      const controller = new AbortController();
      signals.set(request.raw, controller.signal);
      const stopWatching = watchRate(request.raw, limits, () => controller.abort(tooSlow()));
      end = () => {
        stopWatching();
        slot.release();
      };
    },

    /** Aborted (with the 408 as its reason) when the upload of this request is too slow. */
    signalOf(request: FastifyRequest): AbortSignal {
      return signals.get(request.raw) ?? new AbortController().signal;
    },

    /**
     * A `preParsing` hook: a JSON body, which Fastify's parser reads, through a stream that fails
     * with the 408, which the parser answers like any body error. A multipart body is left alone:
     * the multipart reader reads the request itself and watches `signalOf`.
     */
    abortableBody(request: FastifyRequest, payload: Readable): Readable {
      const signal = signals.get(request.raw);
      const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (!signal || mediaType !== 'application/json') return payload;
      const body = new PassThrough();
      // The parser listens for errors while it reads; a body it never reads (one over the limit by
      // its Content-Length) must not turn the client's error into an uncaught one.
      body.on('error', () => {});
      payload.on('error', (error) => body.destroy(error));
      payload.pipe(body);
      signal.addEventListener(
        'abort',
        () => {
          payload.unpipe(body);
          body.destroy(signal.reason as Error);
        },
        { once: true },
      );
      return body;
    },
  };
}

/**
 * Reads and throws away the body of a refused upload, up to `maxBytes`, and answers whether all of
 * it was read. A connection closed with its body unread makes the client's kernel drop the answer
 * it has not read yet: a client still writing (most are, under load) would see EPIPE or a reset,
 * never the 429 and its Retry-After. A larger body, or one slower than the minimum upload rate, is
 * left unread and its connection closed after the answer, as before.
 */
function discardBody(raw: IncomingMessage, maxBytes: number, limits: UploadLimits): Promise<boolean> {
  if (raw.complete) return Promise.resolve(true);
  if (Number(raw.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      stopWatching();
      raw.off('data', count);
      raw.off('end', ended);
      raw.off('close', cut);
      if (!whole) raw.pause();
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) finish(false);
    };
    const ended = () => finish(true);
    const cut = () => finish(false);
    const stopWatching = watchRate(raw, limits, cut);
    raw.on('data', count);
    raw.once('end', ended);
    raw.once('close', cut);
  });
}

/** Calls `onTooSlow` once when a window passes with fewer bytes than the minimum rate asks. */
function watchRate(raw: IncomingMessage, limits: UploadLimits, onTooSlow: () => void): () => void {
  if (limits.minBytesPerSecond === 0) return () => {};
  const socket = raw.socket;
  const least = (limits.minBytesPerSecond * limits.rateWindowMs) / 1000;
  let counted = socket.bytesRead;
  const timer = setInterval(() => {
    // The whole body is in: any wait from here on is the platform's, not the client's.
    if (raw.complete) return stop();
    const read = socket.bytesRead;
    if (read - counted < least) {
      stop();
      onTooSlow();
    }
    counted = read;
  }, limits.rateWindowMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  raw.once('end', stop);
  return stop;
}
