/**
 * How one section of docs/api reads (contract/openapi/descriptions.ts): the words of an operation that
 * used to be typed TypeScript in its route, so a slip in the Markdown must read as meant or stop the
 * build, never publish something else.
 */
import { describe, expect, it } from 'vitest';
import { sectionDocs } from '../../contract/openapi/descriptions.js';

const section = (text: string) => ({ tag: 'Positions', summary: 'Do a thing', text });

describe('a section of docs/api', () => {
  it('reads the errors: codes in order, a parameter, a message with backticks and colons, its issues', () => {
    const docs = sectionDocs(
      'op',
      section(`What it does.

### Errors

- \`INVALID_PARAMETER\` (\`deposits[0].amount\`): deposits[0].amount: must be \`> 0\`.   
- \`NOT_FOUND\`
- \`UNPROCESSABLE\`: Position 0x5f cannot be docked: it is docked.
  - issue \`POSITION_NOT_ACTIVE\`: expected \`shipped\`, actual \`it is docked.\`
  - issue \`OTHER\`: actual \`only this\`
  - issue \`BARE\``),
    );
    expect(docs.description).toBe('What it does.');
    expect(docs.errors).toEqual(['INVALID_PARAMETER', 'NOT_FOUND', 'UNPROCESSABLE']);
    expect(docs.errorExamples).toEqual({
      INVALID_PARAMETER: { message: 'deposits[0].amount: must be `> 0`.', parameter: 'deposits[0].amount' },
      UNPROCESSABLE: {
        message: 'Position 0x5f cannot be docked: it is docked.',
        issues: [
          { type: 'POSITION_NOT_ACTIVE', expected: 'shipped', actual: 'it is docked.' },
          { type: 'OTHER', actual: 'only this' },
          { type: 'BARE' },
        ],
      },
    });
  });

  it('fills placeholders as they are in prose and JSON-escaped in an example', () => {
    const docs = sectionDocs(
      'op',
      section(`Cached {{SECONDS}} s; note: {{NOTE}}

### Example

\`\`\`json
{ "cacheSeconds": {{SECONDS}}, "note": "{{NOTE}}" }
\`\`\``),
      { SECONDS: 300, NOTE: 'say "no" \\ twice' },
    );
    expect(docs.description).toBe('Cached 300 s; note: say "no" \\ twice');
    expect(docs.example).toEqual({ cacheSeconds: 300, note: 'say "no" \\ twice' });
  });

  it('refuses what it cannot read as meant', () => {
    const refused =
      (text: string, values = {}) =>
      () =>
        sectionDocs('op', section(text), values);
    expect(refused('x\n\n### Errors\n\n- `NO_SUCH_CODE`')).toThrow(/no error code NO_SUCH_CODE/);
    expect(refused('x\n\n### Errors\n\n- `NOT_FOUND`\n- `NOT_FOUND`')).toThrow(/twice/);
    expect(refused('x\n\n### Errors\n\n- `NOT_FOUND` (`hash`)')).toThrow(/parameter without a message/);
    expect(refused('x\n\n### Errors\n\n- NOT_FOUND: text')).toThrow(/not an item/);
    expect(refused('x\n\n### Errors\n\n  - issue `X`')).toThrow(/follows no example message/);
    expect(refused('x\n\n### Errors\n\n- `NOT_FOUND`\n\n### Errors\n\n- `INTERNAL`')).toThrow(/twice/);
    expect(refused('x\n\n### Example\n\n{"a": 1}')).toThrow(/one fenced json block/);
    expect(refused('x\n\n### Examples\n\n- a')).toThrow(/not a section/);
    expect(refused('{{MISSING}}')).toThrow(/no value for \{\{MISSING\}\}/);
    expect(refused('no placeholder', { UNUSED: 1 })).toThrow(/given but not used/);
  });
});
