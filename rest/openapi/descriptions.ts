/**
 * The tags' and operations' prose, kept in docs/api/<tag>.md (one file per tag: its `# <Tag>` heading and
 * first paragraph, then a `## <operationId>` section per operation, which may end with a
 * `### Parameters` and a `### Response headers` list of `` - `name`: text `` items) instead of inside the
 * route declarations: a route says what it runs and validates, the docs say what it means. Read once, at
 * the document's first build.
 */
import { readdirSync, readFileSync } from 'node:fs';

const API_DOCS = new URL('../../docs/api/', import.meta.url);

let sections: Map<string, string> | undefined;

/** Every `## <operationId>` section of docs/api/*.md, its text without the blank lines around it. */
export function operationDescriptions(): Map<string, string> {
  if (sections) return sections;
  const found = new Map<string, string>();
  for (const file of readdirSync(API_DOCS).filter((f) => f.endsWith('.md'))) {
    // A checkout with CRLF line ends reads as the LF the sections are split on.
    const text = readFileSync(new URL(file, API_DOCS), 'utf8').replace(/\r\n/g, '\n');
    const parts = text.split(/^## (\S+)\n/m);
    for (let i = 1; i < parts.length; i += 2) {
      const id = parts[i]!;
      if (found.has(id)) throw new Error(`docs/api: operation ${id} is described twice (${file})`);
      found.set(id, parts[i + 1]!.replace(/^\n+/, '').replace(/\n+$/, ''));
    }
  }
  sections = found;
  return found;
}

/** What docs/api says of one operation. */
export interface OperationDocs {
  description: string;
  /** By name (query, path or header parameter). */
  parameters: ReadonlyMap<string, string>;
  /** By header name, beyond the conventions' headers. */
  responseHeaders: ReadonlyMap<string, string>;
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

/**
 * The prose of one operation, its `{{NAME}}` placeholders filled from `values` (the bounds the route
 * enforces, so the prose cannot drift from them). A documented route without a section, a placeholder
 * without a value and a value no placeholder uses are build errors.
 */
export function operationDocs(
  operationId: string,
  values: Readonly<Record<string, string | number>> = {},
): OperationDocs {
  const text = operationDescriptions().get(operationId);
  if (text === undefined)
    throw new Error(`docs/api: no section "## ${operationId}" describes this operation`);
  const used = new Set<string>();
  const filled = text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_match, name: string) => {
    if (!Object.hasOwn(values, name)) throw new Error(`docs/api ${operationId}: no value for {{${name}}}`);
    used.add(name);
    return String(values[name]);
  });
  for (const name of Object.keys(values))
    if (!used.has(name)) throw new Error(`docs/api ${operationId}: {{${name}}} is given but not used`);
  const [description, ...lists] = filled.split(/^### /m);
  const docs = { description: description!.trim(), parameters: new Map(), responseHeaders: new Map() };
  for (const list of lists) {
    const end = list.indexOf('\n');
    const heading = (end < 0 ? list : list.slice(0, end)).trim();
    const body = end < 0 ? '' : list.slice(end + 1);
    if (heading === 'Parameters') docs.parameters = items(body, operationId, heading);
    else if (heading === 'Response headers') docs.responseHeaders = items(body, operationId, heading);
    else
      throw new Error(`docs/api ${operationId}: "### ${heading}" is neither Parameters nor Response headers`);
  }
  return docs;
}

/** Each tag of docs/api: its name (the file's `# ` heading) and description (the paragraph after it). */
export function tagDescriptions(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of readdirSync(API_DOCS).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(new URL(file, API_DOCS), 'utf8').replace(/\r\n/g, '\n');
    const match = /^# (.+)\n\n((?:[^#\n].*\n?)+)/.exec(text);
    if (!match) throw new Error(`docs/api/${file}: no "# <Tag>" heading with a paragraph under it`);
    found.set(match[1]!.trim(), match[2]!.trim().replace(/\n/g, ' '));
  }
  return found;
}
