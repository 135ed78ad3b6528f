/** What one operation's recorded example holds (recorded-examples.ts is generated; see examples.ts). */
export interface OperationExample {
  /** The JSON request body sent. */
  request?: unknown;
  /** A request body other than JSON (an e-invoice's XML), with its media type. */
  requestText?: { mediaType: string; text: string };
  /** The JSON response body answered. */
  response?: unknown;
  /** A text response other than JSON (CSV, an e-invoice's XML), with its media type. */
  responseText?: { mediaType: string; text: string };
}
