import { registerRuntime } from '../../../domain/manifest';
import { Yaml } from '../scenario/scenario-fixtures';
import { claimingRuntime, compiledPortalProbe, manifestWith } from './manifest-fixtures';

const compiled = compiledPortalProbe();
const claimed = manifestWith(() => undefined);
const unclaimed = manifestWith((doc: Yaml) => {
  delete doc.participant_runtime.invocation_tool_actions;
});

describe('registering a participant runtime', () => {
  it('attaches the port with the declared limits when the claim is sound', () => {
    expect(registerRuntime(claimingRuntime, claimed, compiled)).toEqual({
      attachPort: true,
      limits: { max_tool_actions_per_invocation: 16, max_concurrent_tool_actions_per_invocation: 4 },
      diagnostics: [],
    });
  });

  it('accepts the method on the prototype of a class instance', () => {
    class HarnessRuntime {
      attachInvocationToolActions(): void {}
    }
    expect(registerRuntime(new HarnessRuntime(), claimed, compiled).attachPort).toBe(true);
  });

  it.each([
    ['a runtime without the method', { admitAction: claimingRuntime.admitAction }],
    ['a runtime whose attachInvocationToolActions is not a function', { attachInvocationToolActions: true }],
    ['no runtime at all', null],
  ])('refuses the claim for %s, naming the method', (_, runtime) => {
    const registration = registerRuntime(runtime, claimed, compiled);
    expect(registration.attachPort).toBe(false);
    if (registration.attachPort || registration.reason !== 'claim-refused') throw new Error('expected a refused claim');
    expect(registration.diagnostics.map((d) => d.code)).toEqual(['manifest.claim-runtime-method-missing']);
    expect(registration.diagnostics[0]?.message).toContain('attachInvocationToolActions');
  });

  it('reports the missing method together with every other claim defect', () => {
    const defective = manifestWith((doc: Yaml) => {
      doc.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 0;
      doc.participant_runtime.execution_bindings = [];
    });
    const registration = registerRuntime({}, defective, compiled);
    if (registration.attachPort || registration.reason !== 'claim-refused') throw new Error('expected a refused claim');
    expect(registration.diagnostics.map((d) => d.code)).toEqual([
      'manifest.claim-runtime-method-missing',
      'manifest.claim-limit-invalid',
      'manifest.claim-offer-missing',
    ]);
  });

  it('refuses a claim with a defect even when the runtime has the method', () => {
    const defective = manifestWith((doc: Yaml) => {
      doc.participant_runtime.feature_support = [];
    });
    expect(registerRuntime(claimingRuntime, defective, compiled).attachPort).toBe(false);
  });

  it('never attaches a port without the claim, whatever the runtime offers', () => {
    expect(registerRuntime(claimingRuntime, unclaimed, compiled)).toEqual({ attachPort: false, reason: 'unclaimed' });
    expect(registerRuntime({}, unclaimed, compiled)).toEqual({ attachPort: false, reason: 'unclaimed' });
  });
});
