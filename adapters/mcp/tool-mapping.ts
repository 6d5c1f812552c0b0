import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/Either';
import { toolActionRequestFor } from '../../domain/application/tool-action-request';

/**
 * The harness's declared mapping from an MCP tool name to the compiled relation its calls use. A tool
 * that is not in the mapping is refused before any call; whether a mapped relation is bound is for the
 * engine to decide at admission.
 */

const NonEmptyString = new t.Type<string, string, unknown>(
  'non-empty string',
  (value): value is string => typeof value === 'string' && value.length > 0,
  (value, context) =>
    typeof value === 'string' && value.length > 0 ? t.success(value) : t.failure(value, context),
  t.identity,
);

const PositiveMilliseconds = new t.Type<number, number, unknown>(
  'integer milliseconds > 0',
  (value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0,
  (value, context) =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? t.success(value) : t.failure(value, context),
  t.identity,
);

export const ToolRelationCodec = t.exact(
  t.intersection([
    t.type({
      tool_affordance_address: NonEmptyString,
      action_contract_address: NonEmptyString,
      observation_boundary_address: NonEmptyString,
      target_addresses: t.readonlyArray(NonEmptyString),
    }),
    t.partial({
      /** Evidence refs a completed call reports; each must be declared for the action (else outcome_invalid). */
      evidence_refs: t.readonlyArray(NonEmptyString),
      /** How long a call may run before its effects are reported unknown. */
      timeout_ms: PositiveMilliseconds,
    }),
  ]),
);
export type ToolRelation = t.TypeOf<typeof ToolRelationCodec>;

/** MCP tool name -> relation. */
export const ToolMappingCodec = t.readonly(t.record(t.string, ToolRelationCodec));
export type ToolMapping = t.TypeOf<typeof ToolMappingCodec>;

const show = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

const isIntersection = (type: t.Decoder<unknown, unknown>): boolean => {
  let inner: unknown = type;
  while (inner instanceof t.ExactType || inner instanceof t.ReadonlyType) inner = inner.type;
  return inner instanceof t.IntersectionType;
};

/** "expected X at probe_login.target_addresses.1, got Y"; the members of an intersection add no path segment. */
const describe = (error: t.ValidationError): string => {
  const keys: string[] = [];
  for (let i = 1; i < error.context.length; i++) {
    const parent = error.context[i - 1];
    const entry = error.context[i];
    if (entry === undefined || parent === undefined || isIntersection(parent.type)) continue;
    keys.push(entry.key);
  }
  const last = error.context[error.context.length - 1];
  return `expected ${last === undefined ? 'a value' : last.type.name} at ${keys.length === 0 ? '(root)' : keys.join('.')}, got ${show(error.value)}`;
};

/** Decodes a mapping read from a file or built by hand; the message names the path of each problem. */
export const decodeToolMapping = (input: unknown): Either<string, ToolMapping> => {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return left(`expected an object of MCP tool name -> relation, got ${Array.isArray(input) ? 'an array' : JSON.stringify(input) ?? typeof input}`);
  }
  const decoded = ToolMappingCodec.decode(input);
  return isLeft(decoded) ? left(`the MCP tool mapping is invalid: ${decoded.left.map(describe).join('; ')}`) : right(decoded.right);
};

/** The relation an MCP tool name maps to, if it is declared. Own properties only: `toString` is not a tool. */
export const relationOf = (mapping: ToolMapping, toolName: string): ToolRelation | undefined =>
  Object.prototype.hasOwnProperty.call(mapping, toolName) ? mapping[toolName] : undefined;

/**
 * The admission request of one call: identity from the port, relation from the mapping. Tool
 * arguments are not a parameter, so they cannot reach the engine.
 */
export { toolActionRequestFor };
