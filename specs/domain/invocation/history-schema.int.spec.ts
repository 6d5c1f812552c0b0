import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { invocationHistory, type InvocationEvent } from '../../../domain/invocation';
import {
  activeInvocation,
  admitted,
  completed,
  dispatched,
  indeterminate,
  request,
  returned,
  toolResult,
  withheld,
} from './fixtures';

/**
 * Generated history validates against RAES's published stream schema (without the extension field)
 * and, whole, against the project's extension schema.
 */
const repoRoot = path.resolve(__dirname, '../../..');
const readJson = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(file, 'utf8'));
const baseSchema = readJson(path.resolve(repoRoot, 'schemas/raes/schemas/participant-behavior-history-event-stream-v1.json'));
const extensionSchema = readJson(path.resolve(repoRoot, 'schemas/invocation-behavior-history-event-stream-v1.json'));

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(baseSchema);
const validateBase = ajv.compile(baseSchema);
const validateExtension = ajv.compile(extensionSchema);

const settledWithEffects: InvocationEvent = {
  type: 'ToolActionSettled',
  at: '2026-04-11T10:00:05Z',
  invocation_action_instance_id: admitted(4).invocation_action_instance_id,
  action_instance_id: (admitted(4) as { action_instance_id: string }).action_instance_id,
  settlement: 'completed',
  action_result: {
    ...toolResult(4, 'partial_success'),
    failure_class: 'partial_success',
    effects: [{ effect_id: 'login', effect_class: 'intended_effect', description: 'the login form answered' }],
    observations: ['login form reached'],
  },
};

const history = invocationHistory([
  ...activeInvocation(),
  admitted(1, request('call-1')),
  admitted(2, request('call-2')),
  dispatched(2),
  indeterminate(2, 'timeout'),
  admitted(3, request('call-3')),
  dispatched(3),
  completed(3),
  withheld(1, 'cancelled'),
  admitted(4, request('call-4')),
  dispatched(4),
  settledWithEffects,
  returned,
]);

const withoutToolContext = (events: readonly object[]) =>
  events.map((event) => {
    const copy: Record<string, unknown> = { ...event };
    delete copy.invocation_tool_context;
    return copy;
  });

describe('history events against the RAES schemas', () => {
  it('covers every settlement and the outer triple', () => {
    expect(history).toHaveLength(15);
  });

  it('validates, without invocation_tool_context, against participant-behavior-history-event-stream-v1', () => {
    const valid = validateBase(withoutToolContext(history));
    expect(validateBase.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('is rejected by the base schema with invocation_tool_context (its event objects are closed)', () => {
    expect(validateBase(history)).toBe(false);
  });

  it('validates whole against the extension schema', () => {
    const valid = validateExtension(history);
    expect(validateExtension.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the extension rejects an incomplete invocation_tool_context', () => {
    const broken = history.map((event) =>
      event.invocation_tool_context === undefined
        ? event
        : { ...event, invocation_tool_context: { ...event.invocation_tool_context, settlement: 'lost' } },
    );
    expect(validateExtension(broken)).toBe(false);
  });

  it('the extension restates every property of the base event model and adds only invocation_tool_context', () => {
    const baseId = baseSchema.$id as string;
    const baseItem = baseSchema.items as { properties: Record<string, unknown>; required: string[] };
    const defs = extensionSchema.$defs as {
      InvocationBehaviorHistoryEvent: { properties: Record<string, unknown>; required: string[] };
    };
    const extensionItem = defs.InvocationBehaviorHistoryEvent;
    // the extension points the base's local references at the base schema by its $id
    const rebased = JSON.parse(JSON.stringify(baseItem.properties).split('"#/$defs/').join(`"${baseId}#/$defs/`));
    const restated: Record<string, unknown> = { ...extensionItem.properties };
    delete restated.invocation_tool_context;
    expect(restated).toEqual(rebased);
    expect(extensionItem.required).toEqual(baseItem.required);
  });
});
