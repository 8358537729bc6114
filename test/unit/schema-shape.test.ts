/**
 * A graph people can read, beyond descriptions: one enum casing, Relay connections for
 * the paged lists, and no JSON value where a type can say it. Each test names the members that break
 * its rule.
 */
import { getNamedType, isEnumType, isIntrospectionType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../schema/index.js';

const userTypes = () => Object.values(schema.getTypeMap()).filter((t) => !isIntrospectionType(t));
const fields = () =>
  userTypes()
    .filter(isObjectType)
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ type, field })));

describe('GraphQL schema shape', () => {
  it('spells every enum value in SCREAMING_CASE', () => {
    const other = userTypes()
      .filter(isEnumType)
      .flatMap((e) => e.getValues().map((v) => `${e.name}.${v.name}`))
      .filter((name) => !/^[A-Z][A-Z0-9_]*$/.test(name.split('.')[1]!));
    expect(other).toEqual([]);
  });

  it('pages every paged list as a Relay connection (first/after → edges, pageInfo)', () => {
    const paged = fields().filter(({ field }) =>
      field.args.some((a) => ['first', 'after', 'cursor'].includes(a.name)),
    );
    const notRelay = paged
      .filter(({ field }) => {
        const type = getNamedType(field.type);
        const names = field.args.map((a) => a.name);
        return (
          !type.name.endsWith('Connection') ||
          !isObjectType(type) ||
          !('edges' in type.getFields() && 'pageInfo' in type.getFields()) ||
          !names.includes('first') ||
          !names.includes('after') ||
          names.includes('cursor') ||
          names.includes('limit')
        );
      })
      .map(({ type, field }) => `${type.name}.${field.name}`);
    expect(paged.length).toBeGreaterThanOrEqual(6);
    expect(notRelay).toEqual([]);
  });

  it('has no JSON field but the integrator’s own metadata map', () => {
    const json = fields()
      .filter(({ field }) => getNamedType(field.type).name === 'JSON')
      .filter(({ field }) => field.name !== 'metadata')
      .map(({ type, field }) => `${type.name}.${field.name}`);
    expect(json).toEqual([]);
  });
});
