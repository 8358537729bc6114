/**
 * A JSON value that is already serialised. The REST facade splices `text` into its body as it is;
 * anything that serialises it as a value (yoga answering /graphql) gets it parsed through `toJSON`.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
