import { loadScenario } from '../../../domain/scenario';
import { Yaml, portalProbeWith } from './scenario-fixtures';

describe('time-domain mappings with tick periods near 2^53', () => {
  it('compares periods exactly: an identity mapping between periods that differ in the last digit is refused', () => {
    const result = loadScenario(
      portalProbeWith((doc: Yaml) => {
        const domain = (numerator: number) => ({ kind: 'logical', tick_period_seconds: { numerator, denominator: 3 }, epoch: 'scenario_start', description: 'a domain' });
        // 9007199254740974 * 3 and 9007199254740973 * 3 round to the same number.
        doc.time_domains.near = domain(9007199254740974);
        doc.time_domains.nearer = domain(9007199254740973);
        doc.time_domain_mappings = { same: { source_domain_ref: 'near', target_domain_ref: 'nearer', mapping_kind: 'identity', description: 'not the same' } };
      }),
    );
    expect(result.diagnostics.map((d) => [d.code, d.address])).toEqual([['time.model-invalid', 'time_domain_mappings.same.mapping_kind']]);
  });
});
