/**
 * What a field's values look like beyond their GraphQL type (an address is a String, a count an Int).
 * A field says it in its `extensions` (`extensions: as('address')`); the graph does not change, and the
 * REST facade publishes it as the JSON Schema pattern or bound of its documents
 * (contract/openapi/fromSelection.ts).
 */
export const VALUE_FORMATS = [
  /** 0x and 40 hex characters. */
  'address',
  /** 0x and 64 hex characters (a hash). */
  'hash32',
  /** An on-chain amount: an integer string of base units. */
  'baseUnits',
  /** A non-negative integer. */
  'count',
  /** US dollars. */
  'usd',
  /** 0x and any hex characters. */
  'bytes',
  /** A non-negative integer in decimal, as a string (a uint256 word). */
  'decimal',
  /** An integer from 1. */
  'positive',
  /** A number from 0 (a rate, a ratio). */
  'nonNegative',
  /** A webhook endpoint's id: `wh_` and 24 letters or digits. */
  'webhookId',
  /** A webhook delivery's id: `msg_` and 32 hex digits. */
  'deliveryId',
  /** A JSON object of string values (caller metadata). */
  'stringMap',
] as const;
export type ValueFormat = (typeof VALUE_FORMATS)[number];

// A type, not an interface: Pothos takes extensions as a record.
export type ValueExtensions = {
  format?: ValueFormat;
  /** Example values for the documents. */
  examples?: readonly unknown[];
  /** The one value the field ever has (a constant the contract fixes). */
  constant?: string | number | boolean;
};

/** The `extensions` of a field whose values have `format` (and, for the documents, these examples). */
export function as(format: ValueFormat | null, examples?: readonly unknown[]): ValueExtensions {
  return { ...(format ? { format } : {}), ...(examples ? { examples } : {}) };
}

/** The `extensions` of a field that always answers `value` (published as a constant). */
export function fixed(value: string | number | boolean): ValueExtensions {
  return { constant: value };
}
