/**
 * A JSON value already serialised (a document body that is also the event's data): written as is
 * instead of being serialised a second time. Its own module, with no imports, so the HTTP layer
 * (and the gateway, which has no database) can answer one without loading the database layer.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
