/**
 * What the published document says of each operation, kept in docs/api/<tag>.md (one file per tag: its
 * `# <Tag>` heading and first paragraph, then a `## <operationId>: <summary>` section per operation)
 * instead of inside the route declarations: a route says what it runs and validates, the docs say what
 * it means. A section is the description, then any of `### Parameters` and `### Response headers`
 * (`` - `name`: text `` items), `### Errors` (the codes the operation's own validation and resolvers
 * answer with, each `` - `CODE` `` or `` - `CODE` (`parameter`): example message ``, with its
 * `` - issue `TYPE`: expected `x`, actual `y` `` items indented below), `### Example` and
 * `### Request example` (a fenced JSON block each, whose `{{NAME}}` placeholders are filled JSON-escaped:
 * `"{{NOTE}}"` a string, `{{SECONDS}}` a number). Read once; rest/app.ts reads every route's at mount, so
 * a malformed section stops the service from starting rather than failing the first /openapi.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ERROR_CODE_LIST, type ErrorCode } from '../../lib/errors.js';
import type { ErrorExample } from '../schemas/common.js';

const API_DOCS = new URL('../../docs/api/', import.meta.url);

export interface Section {
  /** The `# <Tag>` heading of the file it is in. */
  tag: string;
  summary: string;
  text: string;
}

let sections: Map<string, Section> | undefined;

let files: { file: string; text: string }[] | undefined;

function readApiDocs(): { file: string; text: string }[] {
  files ??= readdirSync(API_DOCS)
    .filter((f) => f.endsWith('.md'))
    // A checkout with CRLF line ends reads as the LF the sections are split on.
    .map((file) => ({ file, text: readFileSync(new URL(file, API_DOCS), 'utf8').replace(/\r\n/g, '\n') }));
  return files;
}

/** Every `## <operationId>: <summary>` section of docs/api/*.md, its text without the blank lines around it. */
function operationSections(): Map<string, Section> {
  if (sections) return sections;
  const found = new Map<string, Section>();
  for (const { file, text } of readApiDocs()) {
    const tag = /^# (.+)\n/.exec(text)?.[1]?.trim();
    if (!tag) throw new Error(`docs/api/${file}: no "# <Tag>" heading`);
    const parts = `${text.replace(/^\uFEFF/, '')}\n`.split(/^## (.*)\n/m);
    for (let i = 1; i < parts.length; i += 2) {
      const heading = /^(\S+): (\S.*\S|\S)\s*$/.exec(parts[i]!);
      if (!heading)
        throw new Error(`docs/api/${file}: "## ${parts[i]}" is not "## <operationId>: <summary>"`);
      const [, id, summary] = heading as unknown as [string, string, string];
      if (found.has(id)) throw new Error(`docs/api: operation ${id} is described twice (${file})`);
      found.set(id, { tag, summary, text: parts[i + 1]!.replace(/^\n+/, '').replace(/\n+$/, '') });
    }
  }
  sections = found;
  return found;
}

/** Each operation's section text, by operationId. */
export function operationDescriptions(): Map<string, string> {
  return new Map([...operationSections()].map(([id, section]) => [id, section.text]));
}

/** What docs/api says of one operation. */
export interface OperationDocs {
  summary: string;
  tag: string;
  description: string;
  /** By name (query, path or header parameter). */
  parameters: ReadonlyMap<string, string>;
  /** By header name, beyond the conventions' headers. */
  responseHeaders: ReadonlyMap<string, string>;
  /** The codes its own validation and resolvers can answer with (SPEC §7), in the order listed. */
  errors: ErrorCode[];
  /** Example envelopes of its own wording, by code (the generic ones otherwise). */
  errorExamples: Partial<Record<ErrorCode, ErrorExample>>;
  /** An example 200 body (openapi:check validates it against the response schema). */
  example?: unknown;
  /** An example request body (validated against the body schema). */
  bodyExample?: unknown;
}

/** The items of a `- \`name\`: text` list (an item may go on over indented lines). */
function items(list: string, operationId: string, heading: string): Map<string, string> {
  const out = new Map<string, string>();
  const [before, ...listed] = list.split(/^- /m);
  if (before!.trim() !== '')
    throw new Error(`docs/api ${operationId}: ${heading} holds text that is not an item`);
  for (const item of listed) {
    const match = /^`([^`]+)`: ([\s\S]+)$/.exec(item.trim());
    if (!match) throw new Error(`docs/api ${operationId}: a ${heading} item is not "- \`name\`: text"`);
    if (out.has(match[1]!)) throw new Error(`docs/api ${operationId}: ${heading} lists ${match[1]} twice`);
    out.set(match[1]!, match[2]!.replace(/\n\s+/g, ' '));
  }
  return out;
}

const ERROR_ITEM = /^- `([A-Z_]+)`(?: \(`([^`]+)`\))?(?:: (\S.*\S|\S))?\s*$/;
const ISSUE_ITEM =
  /^ {2}- issue `([A-Z_]+)`(?:: (?:expected `([^`]*)`(?:, actual `([^`]*)`)?|actual `([^`]*)`))?\s*$/;

/** `### Errors`: the codes in order and, for those with an example of their own, its envelope's words. */
function errors(list: string, operationId: string): Pick<OperationDocs, 'errors' | 'errorExamples'> {
  const codes: ErrorCode[] = [];
  const examples: Partial<Record<ErrorCode, ErrorExample>> = {};
  let last: ErrorExample | undefined;
  for (const line of list.split('\n')) {
    if (line.trim() === '') continue;
    const issue = ISSUE_ITEM.exec(line);
    if (issue) {
      if (!last) throw new Error(`docs/api ${operationId}: an issue item follows no example message`);
      last.issues ??= [];
      last.issues.push({
        type: issue[1]!,
        ...(issue[2] === undefined ? {} : { expected: issue[2] }),
        ...((issue[3] ?? issue[4]) === undefined ? {} : { actual: (issue[3] ?? issue[4])! }),
      });
      continue;
    }
    const item = ERROR_ITEM.exec(line);
    if (!item) throw new Error(`docs/api ${operationId}: "${line}" is not an item of ### Errors`);
    const code = item[1] as ErrorCode;
    if (!ERROR_CODE_LIST.includes(code)) throw new Error(`docs/api ${operationId}: no error code ${code}`);
    if (codes.includes(code)) throw new Error(`docs/api ${operationId}: ### Errors lists ${code} twice`);
    codes.push(code);
    last = undefined;
    if (item[3] !== undefined) {
      last = { message: item[3], ...(item[2] === undefined ? {} : { parameter: item[2] }) };
      examples[code] = last;
    } else if (item[2] !== undefined)
      throw new Error(`docs/api ${operationId}: ${code} names a parameter without a message`);
  }
  return { errors: codes, errorExamples: examples };
}

/** The value of the one fenced JSON block of an example section. */
function jsonBlock(body: string, operationId: string, heading: string): unknown {
  const match = /^\s*```json\n([\s\S]*?)\n```\s*$/.exec(body);
  if (!match) throw new Error(`docs/api ${operationId}: ### ${heading} is not one fenced json block`);
  return JSON.parse(match[1]!);
}

/** Each operation's words as read (mount, the document, /llms.txt and the error list all ask). */
const read = new Map<string, OperationDocs>();

/**
 * The prose of one operation, its `{{NAME}}` placeholders filled from `values` (the bounds the route
 * enforces, so the prose cannot drift from them). A documented route without a section, a placeholder
 * without a value and a value no placeholder uses are build errors.
 */
export function operationDocs(
  operationId: string,
  values: Readonly<Record<string, string | number>> = {},
): OperationDocs {
  const key = `${operationId}\n${JSON.stringify(values)}`;
  const known = read.get(key);
  if (known) return known;
  const section = operationSections().get(operationId);
  if (section === undefined)
    throw new Error(`docs/api: no section "## ${operationId}: <summary>" describes this operation`);
  const docs = sectionDocs(operationId, section, values);
  read.set(key, docs);
  return docs;
}

/** What one section says (`operationDocs` without the look-up). */
export function sectionDocs(
  operationId: string,
  section: Section,
  values: Readonly<Record<string, string | number>> = {},
): OperationDocs {
  const used = new Set<string>();
  const fill = (text: string, json: boolean) =>
    text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_match, name: string) => {
      if (!Object.hasOwn(values, name)) throw new Error(`docs/api ${operationId}: no value for {{${name}}}`);
      used.add(name);
      const value = String(values[name]);
      return json ? JSON.stringify(value).slice(1, -1) : value;
    });
  // The fenced JSON blocks take their values escaped for a JSON text; the prose as they are.
  const filled = section.text
    .split(/(^```json\n[\s\S]*?\n```$)/m)
    .map((part, i) => fill(part, i % 2 === 1))
    .join('');
  for (const name of Object.keys(values))
    if (!used.has(name)) throw new Error(`docs/api ${operationId}: {{${name}}} is given but not used`);
  const [description, ...lists] = filled.split(/^### /m);
  const docs: OperationDocs = {
    summary: section.summary,
    tag: section.tag,
    description: description!.trim(),
    parameters: new Map(),
    responseHeaders: new Map(),
    errors: [],
    errorExamples: {},
  };
  const seen = new Set<string>();
  for (const list of lists) {
    const end = list.indexOf('\n');
    const heading = (end < 0 ? list : list.slice(0, end)).trim();
    if (seen.has(heading)) throw new Error(`docs/api ${operationId}: "### ${heading}" is there twice`);
    seen.add(heading);
    const body = end < 0 ? '' : list.slice(end + 1);
    if (heading === 'Parameters') docs.parameters = items(body, operationId, heading);
    else if (heading === 'Response headers') docs.responseHeaders = items(body, operationId, heading);
    else if (heading === 'Errors') Object.assign(docs, errors(body, operationId));
    else if (heading === 'Example') docs.example = jsonBlock(body, operationId, heading);
    else if (heading === 'Request example') docs.bodyExample = jsonBlock(body, operationId, heading);
    else throw new Error(`docs/api ${operationId}: "### ${heading}" is not a section an operation has`);
  }
  return docs;
}

/** Each tag of docs/api: its name (the file's `# ` heading) and description (the paragraph after it). */
export function tagDescriptions(): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of readApiDocs()) {
    const match = /^# (.+)\n\n((?:[^#\n].*\n?)+)/.exec(text);
    if (!match) throw new Error(`docs/api/${file}: no "# <Tag>" heading with a paragraph under it`);
    found.set(match[1]!.trim(), match[2]!.trim().replace(/\n/g, ' '));
  }
  return found;
}
