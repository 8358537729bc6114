import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';

/**
 * The graph spells enum values in SCREAMING_CASE (schema/enums.ts); the REST facade keeps the internal
 * values its bodies and parameters document (`recent`, `aToB`, `at_risk`). A plan, made once per
 * persisted document from the schema, names where enums sit: the variables (and input fields) to
 * translate to GraphQL names before execution, and the response keys to translate back after it.
 * Nothing else of a result is walked.
 */
type OutputPlan = Map<string, GraphQLEnumType | OutputPlan>;
type InputPlan = GraphQLEnumType | Map<string, InputPlan>;

export interface EnumPlan {
  variables: Map<string, InputPlan>;
  output: OutputPlan;
}

export function enumPlanOf(schema: GraphQLSchema, document: DocumentNode): EnumPlan {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const variables = new Map<string, InputPlan>();
  const output: OutputPlan = new Map();
  if (!operation) return { variables, output };
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    const plan = type ? inputPlanOf(getNamedType(type), new Set()) : undefined;
    if (plan) variables.set(definition.variable.name.value, plan);
  }
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (root) addSelections(output, operation.selectionSet, root, fragments, schema);
  return { variables, output };
}

function inputPlanOf(type: GraphQLNamedType, seen: Set<string>): InputPlan | undefined {
  if (isEnumType(type)) return type;
  if (!isInputObjectType(type) || seen.has(type.name)) return undefined;
  seen.add(type.name);
  const fields = new Map<string, InputPlan>();
  for (const field of Object.values(type.getFields())) {
    const plan = inputPlanOf(getNamedType(field.type), seen);
    if (plan) fields.set(field.name, plan);
  }
  return fields.size > 0 ? fields : undefined;
}

function addSelections(
  plan: OutputPlan,
  selectionSet: SelectionSetNode,
  parent: GraphQLNamedType,
  fragments: Map<string, FragmentDefinitionNode>,
  schema: GraphQLSchema,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
      const field = parent.getFields()[selection.name.value];
      if (!field) continue;
      const key = selection.alias?.value ?? selection.name.value;
      const type = getNamedType(field.type);
      if (isEnumType(type)) plan.set(key, type);
      else if (selection.selectionSet && isCompositeType(type)) {
        const existing = plan.get(key);
        const sub: OutputPlan = existing instanceof Map ? existing : new Map();
        addSelections(sub, selection.selectionSet, type, fragments, schema);
        if (sub.size > 0) plan.set(key, sub);
      }
    } else {
      const fragment =
        selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent;
      if (condition) addSelections(plan, fragment.selectionSet, condition, fragments, schema);
    }
  }
}

/** Variables with their enum values as GraphQL names (an unknown value is left for GraphQL to refuse). */
export function toGraphQLVariables(
  plan: EnumPlan,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  if (plan.variables.size === 0) return variables;
  const out = { ...variables };
  for (const [name, sub] of plan.variables) {
    if (out[name] !== undefined && out[name] !== null) out[name] = inputValue(out[name], sub);
  }
  return out;
}

function inputValue(value: unknown, plan: InputPlan): unknown {
  if (Array.isArray(value)) return value.map((v) => inputValue(v, plan));
  if (value === null || value === undefined) return value;
  if (!(plan instanceof Map)) {
    const match = plan.getValues().find((v) => v.value === value);
    return match ? match.name : value;
  }
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [field, sub] of plan) {
    if (out[field] !== undefined) out[field] = inputValue(out[field], sub);
  }
  return out;
}

/** Translates the enum values of a result (GraphQL names) back to internal values, in place. */
export function toInternalValues(plan: OutputPlan, data: unknown): void {
  if (plan.size === 0 || data === null || typeof data !== 'object') return;
  if (Array.isArray(data)) {
    for (const item of data) toInternalValues(plan, item);
    return;
  }
  const record = data as Record<string, unknown>;
  for (const [key, sub] of plan) {
    const value = record[key];
    if (value === null || value === undefined) continue;
    if (sub instanceof Map) toInternalValues(sub, value);
    else record[key] = Array.isArray(value) ? value.map((v) => internalOf(sub, v)) : internalOf(sub, value);
  }
}

function internalOf(type: GraphQLEnumType, name: unknown): unknown {
  return typeof name === 'string' ? (type.getValue(name)?.value ?? name) : name;
}
