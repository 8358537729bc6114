/**
 * A graph people can read: every type, field, argument, input field and enum value
 * of the GraphQL schema has a description. The test names each one that lacks it.
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../schema/index.js';

const blank = (text: string | null | undefined) => !text || text.trim() === '';

/** Every schema member without a description, as `Type`, `Type.field`, `Type.field(arg)` or `Enum.VALUE`. */
function undocumented(): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (blank(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args) {
          if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (blank(value.description)) missing.push(`${type.name}.${value.name}`);
      }
    } else if (isUnionType(type)) {
      // A union's members are types: described above.
    }
  }
  return missing.sort();
}

describe('GraphQL schema descriptions', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    expect(undocumented()).toEqual([]);
  });
});
