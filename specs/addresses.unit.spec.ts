import {
  isCompiledAddress,
  outerActionInstanceId,
  serviceAddress,
  toolActionInstanceId,
  toolAffordanceAddress,
} from '../domain/addresses';

describe('compiled addresses', () => {
  it('builds the seed affordance address', () => {
    expect(toolAffordanceAddress('participant-behavior', 'portal-client')).toBe(
      'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
    );
  });

  it('builds service addresses that are valid compiled addresses', () => {
    const address = serviceAddress('customer-portal', 'http');
    expect(address).toBe('provision.node.customer-portal.service.http');
    expect(isCompiledAddress(address)).toBe(true);
  });

  it('rejects uppercase and empty segments', () => {
    expect(isCompiledAddress('provision.Node.x')).toBe(false);
    expect(isCompiledAddress('provision..x')).toBe(false);
    expect(isCompiledAddress('single')).toBe(false);
  });

  it('derives tool action ids from the outer id and the admission ordinal', () => {
    const outer = outerActionInstanceId('participant.autonomous-execution.s', 'participant.behavior.a', 1);
    expect(toolActionInstanceId(outer, 3)).toBe(
      'participant.autonomous-execution.s:participant.behavior.a:1:tool=3',
    );
  });
});
