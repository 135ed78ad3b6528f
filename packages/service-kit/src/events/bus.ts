import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import { STREAMS, type StreamName } from '@ledgerline/contracts';
import type { Logger } from '../logger.js';

/**
 * The deployment's view of NATS: one connection, JetStream handles, and the subject prefix that
 * lets several environments (or test runs) share one server.
 */
export class EventBus {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly prefix: string,
  ) {}

  static async connect(url: string, prefix: string, name: string, log: Logger): Promise<EventBus> {
    // noAsyncTraces: the client would otherwise build an Error (a stack capture) for every request,
    // and every publish acknowledgement and ackAck is one.
    const nc = await connect({ servers: url.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true });
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect') log.info(`nats ${s.type}`);
      }
    })().catch(() => undefined);
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    return new EventBus(nc, jetstream(nc, { timeout: 5000 }), jsm, prefix);
  }

  subject(s: string): string {
    return `${this.prefix}${s}`;
  }

  /** Strips the deployment prefix from a received subject. */
  unprefixed(s: string): string {
    return s.startsWith(this.prefix) ? s.slice(this.prefix.length) : s;
  }

  streamName(stream: StreamName): string {
    const p = this.prefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase();
    return `${p}${stream}`;
  }

  /** A durable consumer name unique to this deployment prefix. */
  durableName(name: string): string {
    return `${this.prefix}${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  }

  /** Creates the stream if it is missing; an existing one is left as it is. */
  async ensureStream(stream: StreamName): Promise<string> {
    const name = this.streamName(stream);
    try {
      await this.jsm.streams.info(name);
    } catch {
      try {
        await this.jsm.streams.add({
          name,
          subjects: [this.subject(`${STREAMS[stream].area}.>`)],
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          discard: DiscardPolicy.Old,
          duplicate_window: 2 * 60 * 1_000_000_000,
          num_replicas: 1,
        });
      } catch (e) {
        // another process created it between our info and add
        await this.jsm.streams.info(name).catch(() => {
          throw e;
        });
      }
    }
    return name;
  }

  async isConnected(): Promise<boolean> {
    if (this.nc.isClosed()) return false;
    await this.nc.flush();
    return true;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}
