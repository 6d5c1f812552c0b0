import * as t from 'io-ts';
import { LONE_SURROGATE } from '../unicode-text';

/**
 * The admission request of a tool call (docs/rules.md, port). Hand-written so decoding stays cheap on
 * the admission path; the decoded value is always a fresh literal of exactly these fields, so a
 * caller's extra fields (tool arguments, say) can never reach an event.
 */
export interface ToolActionRequest {
  readonly tool_call_id: string;
  readonly invocation_action_instance_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly participant_implementation_ref: string;
  readonly tool_affordance_address: string;
  readonly action_contract_address: string;
  readonly observation_boundary_address: string;
  readonly target_addresses: readonly string[];
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
}

const STRING_FIELDS = [
  'tool_call_id',
  'invocation_action_instance_id',
  'participant_address',
  'episode_id',
  'participant_implementation_ref',
  'tool_affordance_address',
  'action_contract_address',
  'observation_boundary_address',
  'execution_scope_ref',
] as const;

const show = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text === undefined ? typeof value : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

const isGeneration = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

const isRequest = (value: unknown): value is ToolActionRequest => {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  for (const field of STRING_FIELDS) if (!isNonEmptyString(record[field])) return false;
  const targets = record.target_addresses;
  if (!Array.isArray(targets) || !targets.every(isNonEmptyString)) return false;
  return isGeneration(record.execution_generation);
};

export const ToolActionRequestCodec = new t.Type<ToolActionRequest, ToolActionRequest, unknown>(
  'ToolActionRequest',
  isRequest,
  (input, context) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return t.failure(input, context, `expected a tool action request object, got ${show(input)}`);
    }
    const record = input as Record<string, unknown>;
    for (const field of STRING_FIELDS) {
      if (!isNonEmptyString(record[field])) {
        return t.failure(input, context, `expected a non-empty string at ${field}, got ${show(record[field])}`);
      }
    }
    const targets = record.target_addresses;
    if (!Array.isArray(targets)) {
      return t.failure(input, context, `expected an array of addresses at target_addresses, got ${show(targets)}`);
    }
    for (let i = 0; i < targets.length; i++) {
      if (!isNonEmptyString(targets[i])) {
        return t.failure(input, context, `expected a non-empty string at target_addresses.${i}, got ${show(targets[i])}`);
      }
    }
    const generation = record.execution_generation;
    if (!isGeneration(generation)) {
      return t.failure(input, context, `expected an integer >= 0 at execution_generation, got ${show(generation)}`);
    }
    return t.success({
      tool_call_id: record.tool_call_id as string,
      invocation_action_instance_id: record.invocation_action_instance_id as string,
      participant_address: record.participant_address as string,
      episode_id: record.episode_id as string,
      participant_implementation_ref: record.participant_implementation_ref as string,
      tool_affordance_address: record.tool_affordance_address as string,
      action_contract_address: record.action_contract_address as string,
      observation_boundary_address: record.observation_boundary_address as string,
      target_addresses: (targets as string[]).slice(),
      execution_scope_ref: record.execution_scope_ref as string,
      execution_generation: generation,
    });
  },
  t.identity,
);

/**
 * The longest tool call id admitted. The id is the one free text of a request the engine keeps (every
 * other field must equal a port value or a scenario address), and it is shown in every audit table:
 * providers' ids are tens of characters (docs/decisions.md).
 */
export const MAX_TOOL_CALL_ID_LENGTH = 256;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why a decoded request's tool call id is not admitted (rule 2, on admission only: ids stored before
 * the bound still decode), or undefined when it is.
 */
export const toolCallIdProblem = (toolCallId: string): string | undefined =>
  toolCallId.length > MAX_TOOL_CALL_ID_LENGTH
    ? `tool_call_id has ${toolCallId.length} characters; at most ${MAX_TOOL_CALL_ID_LENGTH} are admitted`
    : CONTROL_CHARACTER.test(toolCallId)
      ? `tool_call_id ${show(toolCallId)} holds a control character; none is admitted`
      : LONE_SURROGATE.test(toolCallId)
        ? `tool_call_id ${show(toolCallId)} holds half of a surrogate pair, which is no character (and not UTF-8); none is admitted`
        : undefined;

/** Two requests are the same request when every field is equal (targets in the same order). */
export const sameToolActionRequest = (a: ToolActionRequest, b: ToolActionRequest): boolean => {
  if (
    a.tool_call_id !== b.tool_call_id ||
    a.invocation_action_instance_id !== b.invocation_action_instance_id ||
    a.participant_address !== b.participant_address ||
    a.episode_id !== b.episode_id ||
    a.participant_implementation_ref !== b.participant_implementation_ref ||
    a.tool_affordance_address !== b.tool_affordance_address ||
    a.action_contract_address !== b.action_contract_address ||
    a.observation_boundary_address !== b.observation_boundary_address ||
    a.execution_scope_ref !== b.execution_scope_ref ||
    a.execution_generation !== b.execution_generation ||
    a.target_addresses.length !== b.target_addresses.length
  ) {
    return false;
  }
  for (let i = 0; i < a.target_addresses.length; i++) {
    if (a.target_addresses[i] !== b.target_addresses[i]) return false;
  }
  return true;
};
