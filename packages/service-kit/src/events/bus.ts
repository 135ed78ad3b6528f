import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import { STREAMS, type StreamName } from '@ledgerline/contracts/events';
import type { Logger } from '../logger.js';
import { ConfigError, type BaseConfig } from '../config.js';
import { ReplyInbox } from './replies.js';

/** What a process needs to reach NATS: the server, its credentials and the stream settings. */
export type BusConfig = Pick<
  BaseConfig,
  | 'NATS_URL'
  | 'NATS_SUBJECT_PREFIX'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_TOKEN'
  | 'NATS_CREDS'
  | 'NATS_INBOX_PREFIX'
  | 'NATS_STREAM_REPLICAS'
  | 'NATS_STREAM_MAX_AGE'
  | 'NATS_STREAM_MAX_BYTES'
>;

/** The connection's credentials: none, user and password, a token, or a `.creds` file; never two kinds. */
export function natsCredentials(c: Pick<BusConfig, 'NATS_USER' | 'NATS_PASSWORD' | 'NATS_TOKEN' | 'NATS_CREDS'>): Partial<ConnectionOptions> {
  const kinds = [c.NATS_USER !== undefined || c.NATS_PASSWORD !== undefined, c.NATS_TOKEN !== undefined, c.NATS_CREDS !== undefined].filter(Boolean).length;
  if (kinds > 1) throw new ConfigError('Invalid configuration:\n  NATS_USER/NATS_PASSWORD, NATS_TOKEN and NATS_CREDS: set one kind of NATS credentials, not several');
  if (c.NATS_USER !== undefined || c.NATS_PASSWORD !== undefined) {
    if (!c.NATS_USER || !c.NATS_PASSWORD) throw new ConfigError('Invalid configuration:\n  NATS_USER and NATS_PASSWORD: set both or neither');
    return { user: c.NATS_USER, pass: c.NATS_PASSWORD };
  }
  if (c.NATS_TOKEN !== undefined) return { token: c.NATS_TOKEN };
  if (c.NATS_CREDS !== undefined) {
    let creds: Uint8Array;
    try {
      creds = readFileSync(c.NATS_CREDS);
    } catch (e) {
      throw new ConfigError(`Invalid configuration:\n  NATS_CREDS: cannot read ${c.NATS_CREDS}: ${(e as Error).message}`);
    }
    return { authenticator: credsAuthenticator(creds) };
  }
  return {};
}

export interface StreamSettings {
  replicas: number;
  /** Milliseconds; 0 keeps events forever. */
  maxAgeMs: number;
  /** -1 unlimited. */
  maxBytes: number;
}

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
    private readonly streams: StreamSettings,
    private readonly log: Logger,
    /** Requests and stream publishes go through it, not the client's `request` (decision 132). */
    readonly replies: ReplyInbox,
  ) {}

  static async connect(config: BusConfig, name: string, log: Logger): Promise<EventBus> {
    // noAsyncTraces: the client would otherwise build an Error (a stack capture) for every request,
    // and every publish acknowledgement is one.
    const nc = await connect({
      servers: config.NATS_URL.split(','),
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      noAsyncTraces: true,
      ...(config.NATS_INBOX_PREFIX ? { inboxPrefix: config.NATS_INBOX_PREFIX } : {}),
      ...natsCredentials(config),
    });
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect') log.info(`nats ${s.type}`);
      }
    })().catch(() => undefined);
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    const streams = { replicas: config.NATS_STREAM_REPLICAS, maxAgeMs: config.NATS_STREAM_MAX_AGE, maxBytes: config.NATS_STREAM_MAX_BYTES };
    return new EventBus(nc, jetstream(nc, { timeout: 5000 }), jsm, config.NATS_SUBJECT_PREFIX, streams, log, new ReplyInbox(nc, config.NATS_INBOX_PREFIX));
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

  /**
   * Creates the stream if it is missing, with the configured replicas and limits; an existing
   * one whose limits or replicas differ from the configuration is updated to them (a failed
   * update, e.g. more replicas than the cluster has servers, is logged and the stream kept).
   */
  async ensureStream(stream: StreamName): Promise<string> {
    const name = this.streamName(stream);
    const wanted = {
      num_replicas: this.streams.replicas,
      max_age: this.streams.maxAgeMs * 1_000_000,
      max_bytes: this.streams.maxBytes,
    };
    const info = await this.jsm.streams.info(name).catch(() => null);
    if (info) {
      const c = info.config;
      if (c.num_replicas !== wanted.num_replicas || c.max_age !== wanted.max_age || c.max_bytes !== wanted.max_bytes) {
        await this.jsm.streams.update(name, { ...wanted }).catch((e) => this.log.warn('stream settings not applied', { stream: name, err: String(e) }));
      }
      return name;
    }
    try {
      await this.jsm.streams.add({
        name,
        subjects: [this.subject(`${STREAMS[stream].area}.>`)],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        duplicate_window: 2 * 60 * 1_000_000_000,
        ...wanted,
      });
    } catch (e) {
      // another process created it between our info and add
      await this.jsm.streams.info(name).catch(() => {
        throw e;
      });
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
