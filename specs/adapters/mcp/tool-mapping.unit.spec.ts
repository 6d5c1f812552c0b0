import { isLeft, isRight } from 'fp-ts/Either';
import { decodeToolMapping, relationOf, toolActionRequestFor, type ToolMapping } from '../../../adapters/mcp';
import { ToolActionRequestCodec } from '../../../domain/invocation';

/** The declared MCP tool name -> relation mapping, and the admission request built from it. */

const PORT_VALUES = {
  invocation_action_instance_id: 'participant.autonomous-execution.s:participant.behavior.a:1',
  participant_address: 'participant.behavior.a',
  episode_id: 'episode-1',
  participant_implementation_ref: 'runner',
  execution_scope_ref: 'participant.autonomous-execution.s',
  execution_generation: 2,
  observation_point: 'time.clock.k@segment=0,tick=0',
};

const PROBE = {
  tool_affordance_address: 'participant.behavior-specification.s.tool-affordance.t',
  action_contract_address: 'participant.action-contract.x',
  observation_boundary_address: 'participant.observation-boundary.b',
  target_addresses: ['provision.node.n.service.v'],
};

describe('decodeToolMapping', () => {
  it('accepts a declared relation with optional evidence refs and timeout', () => {
    const decoded = decodeToolMapping({ probe_login: { ...PROBE, evidence_refs: ['content.c'], timeout_ms: 500 } });
    expect(isRight(decoded) && decoded.right.probe_login).toEqual({ ...PROBE, evidence_refs: ['content.c'], timeout_ms: 500 });
  });

  it('names the path and the value of each problem', () => {
    const decoded = decodeToolMapping({ probe_login: { ...PROBE, target_addresses: ['ok', ''], timeout_ms: -1 } });
    expect(isLeft(decoded)).toBe(true);
    const message = isLeft(decoded) ? decoded.left : '';
    expect(message).toContain('expected non-empty string at probe_login.target_addresses.1, got ""');
    expect(message).toContain('expected integer milliseconds > 0 at probe_login.timeout_ms, got -1');
  });

  it('refuses a relation that lacks a field, naming it', () => {
    const { action_contract_address: _missing, ...rest } = PROBE;
    const decoded = decodeToolMapping({ probe_login: rest });
    expect(isLeft(decoded) ? decoded.left : '').toContain('at probe_login.action_contract_address, got nothing');
  });

  it('refuses something that is not an object of relations', () => {
    expect(isLeft(decodeToolMapping([PROBE]))).toBe(true);
    expect(isLeft(decodeToolMapping(null))).toBe(true);
  });

  it('drops fields a relation does not declare', () => {
    const decoded = decodeToolMapping({ probe_login: { ...PROBE, password: 'hunter2' } });
    expect(isRight(decoded) && Object.keys(decoded.right.probe_login ?? {})).not.toContain('password');
  });
});

describe('relationOf', () => {
  const mapping: ToolMapping = { probe_login: PROBE };

  it('finds a declared tool and nothing else', () => {
    expect(relationOf(mapping, 'probe_login')).toEqual(PROBE);
    expect(relationOf(mapping, 'reset_portal')).toBeUndefined();
  });

  it('does not take inherited object properties for tools', () => {
    expect(relationOf(mapping, 'toString')).toBeUndefined();
    expect(relationOf(mapping, 'constructor')).toBeUndefined();
    expect(relationOf(mapping, '__proto__')).toBeUndefined();
  });
});

describe('toolActionRequestFor', () => {
  it('takes identity from the port and the relation from the mapping, and decodes as a request', () => {
    const request = toolActionRequestFor(PORT_VALUES, 'call-7', PROBE);
    expect(request).toEqual({
      tool_call_id: 'call-7',
      invocation_action_instance_id: PORT_VALUES.invocation_action_instance_id,
      participant_address: PORT_VALUES.participant_address,
      episode_id: PORT_VALUES.episode_id,
      participant_implementation_ref: PORT_VALUES.participant_implementation_ref,
      tool_affordance_address: PROBE.tool_affordance_address,
      action_contract_address: PROBE.action_contract_address,
      observation_boundary_address: PROBE.observation_boundary_address,
      target_addresses: PROBE.target_addresses,
      execution_scope_ref: PORT_VALUES.execution_scope_ref,
      execution_generation: 2,
    });
    expect(isRight(ToolActionRequestCodec.decode(request))).toBe(true);
  });
});
