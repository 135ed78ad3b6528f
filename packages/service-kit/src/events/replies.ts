import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';

/** No answer came within the request's time. */
export class ReplyTimeoutError extends Error {
  constructor(readonly subject: string, timeoutMs: number) {
    super(`no answer to ${subject} within ${timeoutMs} ms`);
    this.name = 'ReplyTimeoutError';
  }
}

/** The server said at once that nothing subscribes to the subject (a stream: none captures it). */
export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no responders for ${subject}`);
    this.name = 'NoRespondersError';
  }
}

/** JetStream refused a message (its `error` answer), or answered something that is no acknowledgement. */
export class StreamPublishError extends Error {
  constructor(readonly subject: string, message: string, readonly code?: number) {
    super(`publish to ${subject} refused: ${message}`);
    this.name = 'StreamPublishError';
  }
}

/** JetStream's acknowledgement of a stored message. */
export interface StreamAck {
  stream: string;
  seq: number;
  /** The message's `Nats-Msg-Id` was seen within the stream's duplicate window: stored once, earlier. */
  duplicate: boolean;
}

interface Pending {
  subject: string;
  resolve: (m: Msg) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Request-reply over one wildcard inbox of the process's own. The client's `request` settles an
 * answered request's promise and then rejects it again with a new `RequestError("cancelled")`, an
 * Error with its stack captured, for every answer, whatever `noAsyncTraces` says (nats-core 3.4,
 * `RequestOne.resolver` → `cancel`). Every JetStream publish acknowledgement and every RPC is such
 * a request (decision 132 has what that cost). The inbox's subject has the client's own form
 * (`<inbox prefix>.<nuid>.<token>`), so the NATS permissions that let a user receive its answers
 * cover it unchanged.
 */
export class ReplyInbox {
  private readonly pending = new Map<string, Pending>();
  private readonly prefix: string;
  private next = 0;
  private closedError: Error | null = null;

  constructor(private readonly nc: NatsConnection, inboxPrefix?: string) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
    nc.subscribe(`${this.prefix}*`, {
      callback: (err, msg) => {
        // an error of the subscription itself (a permission refused): no answer can arrive
        if (err) return this.failAll(err, false);
        const token = msg.subject.slice(this.prefix.length);
        const p = this.pending.get(token);
        if (!p) return; // answered after its time ran out
        this.settle(token, p);
        if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(new NoRespondersError(p.subject));
        else p.resolve(msg);
      },
    });
    nc.closed().then(
      () => this.failAll(new Error('the NATS connection closed'), true),
      (e: unknown) => this.failAll(e instanceof Error ? e : new Error(String(e)), true),
    );
  }

  /** Publishes `data` to `subject` and answers the first reply, or fails after `timeoutMs`. */
  request(subject: string, data: string | Uint8Array, opts: { timeoutMs: number; headers?: MsgHdrs }): Promise<Msg> {
    if (this.closedError) return Promise.reject(this.closedError);
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new ReplyTimeoutError(subject, opts.timeoutMs));
      }, opts.timeoutMs);
      this.pending.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: `${this.prefix}${token}`, headers: opts.headers });
      } catch (e) {
        this.settle(token, this.pending.get(token)!);
        reject(e as Error);
      }
    });
  }

  /**
   * Publishes one message to the stream that captures `subject` and answers JetStream's
   * acknowledgement. `msgId` becomes `Nats-Msg-Id`, by which the stream stores a message sent
   * twice within its duplicate window once.
   */
  async publishToStream(subject: string, data: string | Uint8Array, opts: { msgId: string; headers: MsgHdrs; timeoutMs: number }): Promise<StreamAck> {
    opts.headers.set('Nats-Msg-Id', opts.msgId);
    const reply = await this.request(subject, data, { timeoutMs: opts.timeoutMs, headers: opts.headers });
    let ack: { stream?: unknown; seq?: unknown; duplicate?: unknown; error?: { code?: number; description?: string } };
    try {
      ack = JSON.parse(Buffer.from(reply.data).toString('utf8'));
    } catch {
      throw new StreamPublishError(subject, 'the acknowledgement is not JSON');
    }
    if (ack.error) throw new StreamPublishError(subject, ack.error.description ?? 'error', ack.error.code);
    if (typeof ack.stream !== 'string' || !ack.stream || typeof ack.seq !== 'number') throw new StreamPublishError(subject, 'no acknowledgement');
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate === true };
  }

  private settle(token: string, p: Pending) {
    clearTimeout(p.timer);
    this.pending.delete(token);
  }

  /** Fails every waiting request; `final` (the connection closed): and every later one. */
  private failAll(err: Error, final: boolean) {
    if (final) this.closedError ??= err;
    for (const [token, p] of this.pending) {
      this.settle(token, p);
      p.reject(err);
    }
  }
}
