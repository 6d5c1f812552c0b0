import { loadScenario } from '../../../domain/scenario';
import { Yaml, portalProbeWith } from './scenario-fixtures';

/** The example with one edit; what RAES 3.3's models read, the engine reads, with the same values. */
const spec = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'];
const policy = (doc: Yaml): Yaml => spec(doc).autonomous_execution;
const cadence = (doc: Yaml): Yaml => doc.temporal_constraints['probe-cadence'];
const contract = (doc: Yaml): Yaml => doc.action_contracts['probe-customer-portal-login'];
const errorsOf = (edit: (doc: Yaml) => void) =>
  loadScenario(portalProbeWith(edit)).diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: d.code, address: d.address, message: d.message }));

describe('lists RAES refuses to repeat', () => {
  it.each([
    ['participant_refs', ['participant-agent', 'participant-agent']],
    ['action_contract_refs', ['probe-customer-portal-login', 'probe-customer-portal-login']],
    ['observation_boundary_refs', ['participant-view', 'participant-view']],
    ['backend_feature_support_refs', ['autonomous_execution', 'autonomous_execution']],
    ['evidence_contract_refs', ['a', ' ']],
  ])('refuses a repeated or blank ref in behavior_specifications.<s>.%s', (field, refs) => {
    const address = `behavior_specifications.participant-behavior.${field}`;
    expect(
      errorsOf((doc) => {
        spec(doc)[field] = refs;
      }),
    ).toEqual([{ code: 'scenario.shape-invalid', address, message: expect.stringContaining(`expected a list of distinct, non-blank refs at ${address}`) }]);
  });

  it('refuses a repeated failure class, precondition id or effect id of an action contract', () => {
    const at = 'action_contracts.probe-customer-portal-login';
    expect(
      errorsOf((doc) => {
        contract(doc).failure_classes = [...contract(doc).failure_classes, contract(doc).failure_classes[0]];
        contract(doc).preconditions = [...contract(doc).preconditions, contract(doc).preconditions[0]];
        contract(doc).effects = [...contract(doc).effects, contract(doc).effects[0]];
      }).map((d) => [d.address, d.message.split(' at ')[0]]),
    ).toEqual([
      [`${at}.preconditions`, 'expected a non-empty list of preconditions with distinct precondition_id values'],
      [`${at}.effects`, 'expected a non-empty list of effects with distinct effect_id values'],
      [`${at}.failure_classes`, 'expected a non-empty list of distinct failure classes'],
    ]);
  });

  it('refuses an action contract without preconditions, effects or failure classes, as RAES does', () => {
    const at = 'action_contracts.probe-customer-portal-login';
    expect(
      errorsOf((doc) => {
        contract(doc).preconditions = [];
        contract(doc).effects = [];
        delete contract(doc).failure_classes;
      }).map((d) => d.address),
    ).toEqual([`${at}.preconditions`, `${at}.effects`, `${at}.failure_classes`]);
  });

  it('still accepts repeats RAES accepts (an agent listing an action twice)', () => {
    expect(
      errorsOf((doc) => {
        doc.agents['participant-agent'].actions.push(doc.agents['participant-agent'].actions[0]);
      }),
    ).toEqual([]);
  });
});

describe('numbers and booleans as RAES reads them', () => {
  const compiledWith = (edit: (doc: Yaml) => void) => {
    const result = loadScenario(portalProbeWith(edit));
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    if (!result.ok) throw new Error('expected the scenario to load');
    return result.compiled;
  };

  it('compiles a count written as a string, a float or true exactly as the plain number', () => {
    const plain = compiledWith((doc) => {
      policy(doc).max_in_flight = 1;
      policy(doc).max_action_attempts = 10;
      cadence(doc).cadence_ticks = 2;
    });
    const written = compiledWith((doc) => {
      policy(doc).max_in_flight = true;
      policy(doc).max_action_attempts = '1_0';
      cadence(doc).cadence_ticks = '2';
    });
    expect(written).toEqual(plain);
    const floats = compiledWith((doc) => {
      policy(doc).max_in_flight = '1.0';
      policy(doc).max_action_attempts = 10.0;
      cadence(doc).cadence_ticks = ' 2 ';
    });
    expect(floats).toEqual(plain);
  });

  it('reads yes and no as RAES does on a clock', () => {
    expect(
      errorsOf((doc) => {
        doc.clocks['exercise-clock'].supports_pause = 'yes';
        doc.clocks['exercise-clock'].supports_reset = 'on';
      }),
    ).toEqual([]);
  });

  it('accepts time-model ticks RAES leaves unbounded, up to the largest the engine counts exactly', () => {
    const compiled = compiledWith((doc) => {
      cadence(doc).cadence_ticks = 2_000_000_000;
      cadence(doc).start = { tick: Number.MAX_SAFE_INTEGER - 1 };
    });
    expect(compiled.policies[0]?.cadence).toEqual(expect.objectContaining({ cadenceTicks: 2_000_000_000, startTick: Number.MAX_SAFE_INTEGER - 1 }));
  });

  it('refuses a tick beyond 2^53 - 1, quoting it as written', () => {
    const text = portalProbeWith((doc) => {
      cadence(doc).start = { tick: 0 };
    }).replace(/tick: 0\b/, 'tick: 99999999999999999999');
    const address = 'temporal_constraints.probe-cadence.start.tick';
    expect(loadScenario(text).diagnostics.map((d) => d.message)).toEqual([
      `expected an integer from -9007199254740991 to 9007199254740991 at ${address}, got 99999999999999999999.`,
    ]);
  });

  it('quotes a count as written when its value reads differently', () => {
    const text = portalProbeWith(() => undefined).replace(/max_action_attempts: \d+/, 'max_action_attempts: 9007199254740993');
    expect(loadScenario(text).diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/expected an integer from 1 to 1000000 at .*max_action_attempts, got 9007199254740993\.$/),
    ]);
  });

  it('keeps RAES bounds where RAES states them', () => {
    expect(
      errorsOf((doc) => {
        policy(doc).max_in_flight = '1025';
      }).map((d) => d.message),
    ).toEqual([expect.stringContaining('expected an integer from 1 to 1024 at behavior_specifications.participant-behavior.autonomous_execution.max_in_flight, got "1025"')]);
  });

  it('refuses what pydantic refuses as an integer', () => {
    expect(
      errorsOf((doc) => {
        policy(doc).max_action_attempts = '1:30';
      }).map((d) => d.code),
    ).toEqual(['scenario.shape-invalid']);
  });
});
