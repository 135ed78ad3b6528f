import { EVENT_DATA_SCHEMAS, RETIRING_EVENT_VERSIONS, SUBJECTS, cloudEventSchema, currentEventVersion, eventType, streamForSubject, type Subject } from '../events.js';
import { type Json, SchemaCollector } from './json-schema.js';

/* The AsyncAPI 3.0.0 document of every subject in SUBJECTS with its data schema. */

// --- AsyncAPI --------------------------------------------------------------------------------

export const ASYNC_SCHEMA_PREFIX = '#/components/schemas/';

export function pascal(subject: string): string {
  return subject
    .split(/[._]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

export interface EventCatalogueOptions {
  /** NATS server shown in the catalogue (default localhost:4222). */
  natsHost?: string;
}

/**
 * The AsyncAPI 3.0.0 catalogue of the event subjects: each message is a CloudEvents 1.0 JSON
 * envelope whose `data` follows the subject's schema. Schemas are JSON Schema draft-07 (the
 * AsyncAPI schema format).
 */
export function buildEventCatalogue(opts: EventCatalogueOptions = {}): Json {
  const collector = new SchemaCollector('draft-07', ASYNC_SCHEMA_PREFIX);
  const envelope = collector.use(cloudEventSchema, 'output');
  const subjects = Object.values(SUBJECTS) as Subject[];
  const data = subjects.map((s) => ({ subject: s, schema: collector.use(EVENT_DATA_SCHEMAS[s], 'output') }));
  const retiring = RETIRING_EVENT_VERSIONS.map((v) => ({ ...v, dataSchema: collector.use(v.schema, 'output') }));
  const schemas = collector.finish();
  schemas.CloudEvent = { ...envelope(), description: 'CloudEvents 1.0 envelope (structured JSON mode); extensions orgid and traceparent' };

  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const message = (subject: string, version: number, dataSchema: Json): Json => ({
    name: subject,
    title: `${subject} v${version}`,
    contentType: 'application/json',
    headers: {
      type: 'object',
      properties: {
        'Nats-Msg-Id': { type: 'string', description: 'Equals the CloudEvents id; JetStream de-duplicates on it' },
        'ce-orgid': { type: 'string', description: 'The organisation; equals the envelope orgid and the last token of the subject' },
        'ce-subject': { type: 'string', description: 'The resource the event is about; equals the envelope subject (absent when the event has none)' },
        traceparent: { type: 'string', description: 'W3C trace context' },
      },
    },
    payload: {
      allOf: [
        { $ref: `${ASYNC_SCHEMA_PREFIX}CloudEvent` },
        {
          type: 'object',
          properties: { type: { const: eventType(subject, version) }, data: dataSchema },
          required: ['type', 'data'],
        },
      ],
    },
    'x-cloudevents-type': eventType(subject, version),
    'x-event-version': version,
  });
  for (const { subject, schema } of data) {
    const key = pascal(subject);
    const dataSchema = schema();
    const older = retiring.filter((v) => v.subject === subject);
    for (const v of older) {
      messages[`${key}V${v.version}`] = {
        ...message(subject, v.version, v.dataSchema()),
        deprecated: true,
        description: `Version ${v.version}, published beside version ${currentEventVersion(subject)} until ${v.sunset} (its sunset, inclusive); move to version ${currentEventVersion(subject)} before then.`,
        'x-sunset': v.sunset,
      };
    }
    messages[key] = message(subject, currentEventVersion(subject), dataSchema);
    const versionKeys = [key, ...older.map((v) => `${key}V${v.version}`)];
    channels[key] = {
      address: `${subject}.{orgId}`,
      title: subject,
      description: `Stream ${streamForSubject(subject)}. The last token is the organisation (subscribe to \`${subject}.42\` for one organisation, \`${subject}.*\` for all you may read). Subjects carry the deployment prefix NATS_SUBJECT_PREFIX when set.`,
      parameters: { orgId: { description: 'Id of the organisation the event belongs to; equals the envelope orgid' } },
      messages: Object.fromEntries(versionKeys.map((k) => [k, { $ref: `#/components/messages/${k}` }])),
    };
    operations[`publish${key}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${key}` },
      summary: `Published when ${subject.replace(/[._]/g, ' ')}`,
      messages: versionKeys.map((k) => ({ $ref: `#/channels/${key}/messages/${k}` })),
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Ledgerline events',
      version: '1.0.0',
      description:
        'Events of the platform on NATS JetStream, one stream per owning service. Every event is published on `<subject>.<orgId>`: the last subject token is the organisation, so a subscription or a NATS permission selects one organisation (`sales.*.*.42`). Every message is a CloudEvents 1.0 JSON envelope; `type` is `com.ledgerline.<subject>.v<version>`, `orgid` names the same organisation as the subject. Delivery is at least once: consumers de-duplicate by the event id. Readers ignore fields they do not know (new fields are added without notice); a change that could break a reader is a new version, published beside the old one until the sunset of the old one (a deprecated message with `x-sunset`, at least 180 days after the new version is released). See docs/integrations.md.',
    },
    defaultContentType: 'application/json',
    servers: {
      nats: { host: opts.natsHost ?? 'localhost:4222', protocol: 'nats', description: 'NATS JetStream' },
    },
    channels,
    operations,
    components: { schemas, messages },
  };
}
