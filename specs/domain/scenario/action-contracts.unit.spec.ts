import { Yaml, pacingDisclosure, portalProbeWith, scheduleTemporalContract, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * An action contract's members as RAES 3.3 types and checks them (ParticipantActionContract and the models
 * of its members). Every refusal and acceptance below was checked against RAES's own models.
 */

const NAME = 'probe-customer-portal-login';
const AT = `action_contracts.${NAME}`;
const contract = (doc: Yaml): Yaml => doc.action_contracts[NAME];
const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const errorsOf = (edit: (c: Yaml, doc: Yaml) => void) => errorsOfText(portalProbeWith((doc) => edit(contract(doc), doc)));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);
const invalid = (address: string, message: string | RegExp) => expectedDiagnostic('scenario.action-contract-invalid', address === '' ? AT : `${AT}.${address}`, message);

describe("an action contract's own texts and lists", () => {
  it.each(['semantic_version', 'procedure_basis', 'realization_profile', 'fidelity_claim'])('refuses a blank %s, as RAES strips it', (field) => {
    expect(errorsOf((c) => (c[field] = ' \t'))).toEqual([shape(field, `expected a non-blank string at ${AT}.${field}, got " \\t".`)]);
    expect(errorsOf((c) => (c[field] = '\u001c'))).toEqual([shape(field)]);
    // U+FEFF is not white space to Python: RAES keeps such a text.
    expect(errorsOf((c) => (c[field] = '\ufeff'))).toEqual([]);
  });

  it.each(['state_transition_effects', 'observation_expectations', 'evidence_expectations'])(
    'reads a blank entry of %s as Python does (U+0085 is white space, U+FEFF is not)',
    (field) => {
      expect(errorsOf((c) => (c[field] = ['a', '\u0085']))).toEqual([shape(field, 'expected a list of distinct, non-blank entries')]);
      expect(errorsOf((c) => (c[field] = ['a', '\ufeff']))).toEqual([]);
    },
  );

  it('refuses a blank id or description of a precondition or an effect, and a repeated or blank ref in their ref lists', () => {
    expect(
      errorsOf((c) => {
        c.preconditions[0].precondition_id = ' ';
        c.preconditions[0].evidence_refs = ['content.task-brief', 'content.task-brief'];
        c.effects[0].description = '';
        c.effects[1].evidence_refs = ['content.participant-observation', ' '];
      }),
    ).toEqual([
      shape('preconditions.0.precondition_id', 'expected a non-blank string'),
      shape('preconditions.0.evidence_refs', 'expected a list of distinct, non-blank refs'),
      shape('effects.0.description', 'expected a non-blank string'),
      shape('effects.1.evidence_refs', 'expected a list of distinct, non-blank refs'),
    ]);
    expect(
      errorsOf((c) => {
        c.preconditions[0].evidence_refs = ['content.task-brief', 'content.operator-notes'];
        c.effects[1].evidence_refs = ['content.participant-observation', 'content.task-brief'];
      }),
    ).toEqual([]);
  });
});

describe('effects', () => {
  it.each(['intended_effect', 'side_effect', 'observation_effect', 'visibility_effect', 'detection_effect', 'evidence_effect'])(
    'requires target_refs or evidence_refs of a %s',
    (effectClass) => {
      expect(
        errorsOf((c) => {
          c.effects[0] = { effect_id: 'portal-touched', effect_class: effectClass, description: 'The portal is touched.', target_refs: [] };
        }),
      ).toEqual([
        invalid(
          'effects.0',
          `effect "portal-touched" (${effectClass}) names no target_refs or evidence_refs: list what it acts on in ${AT}.effects.0.target_refs or the evidence it leaves in its evidence_refs`,
        ),
      ]);
      expect(
        errorsOf((c) => {
          c.effects[0] = { effect_id: 'portal-touched', effect_class: effectClass, description: 'The portal is touched.', evidence_refs: ['content.participant-observation'] };
        }),
      ).toEqual([]);
    },
  );

  it('lets a no_effect or unknown_effect effect name neither', () => {
    expect(
      errorsOf((c) => {
        c.effects.push({ effect_id: 'nothing-disclosed', effect_class: 'no_effect', description: 'Nothing else is disclosed.' });
        c.effects.push({ effect_id: 'unknown-side', effect_class: 'unknown_effect', description: 'Side effects are unknown.' });
        c.effects.push({ effect_id: 'untargeted', effect_class: 'side_effect', description: 'Has no refs.' });
      }),
    ).toEqual([invalid('effects.4', 'effect "untargeted" (side_effect) names no target_refs or evidence_refs')]);
  });
});

describe('backend failure mappings', () => {
  const mapping = (code: string, failureClass: string) => ({ backend_error_code: code, failure_class: failureClass, diagnostic: `${code} happened` });

  it('types each mapping: a non-blank code and diagnostic, a failure class, no other keys', () => {
    expect(
      errorsOf((c) => {
        c.backend_failure_mappings = [
          { backend_error_code: ' ', failure_class: 'unknown', diagnostic: 'd' },
          { backend_error_code: 'portal.down', failure_class: 'down', diagnostic: '' },
          { ...mapping('portal.slow', 'unknown'), retry: true },
          { backend_error_code: 'portal.gone', failure_class: 'unknown' },
        ];
      }),
    ).toEqual([
      shape('backend_failure_mappings.0.backend_error_code', 'expected a non-blank string'),
      shape('backend_failure_mappings.1.failure_class', 'expected one of precondition_unsatisfied, '),
      shape('backend_failure_mappings.1.diagnostic', 'expected a non-blank string'),
      { code: 'scenario.key-unknown', address: `${AT}.backend_failure_mappings.2.retry`, message: expect.stringContaining('unknown key "retry"') },
      shape('backend_failure_mappings.3.diagnostic', `missing required field ${AT}.backend_failure_mappings.3.diagnostic`),
    ]);
    expect(errorsOf((c) => (c.backend_failure_mappings = null))).toEqual([shape('backend_failure_mappings', 'expected a list')]);
  });

  it('refuses a backend_error_code mapped twice', () => {
    expect(
      errorsOf((c) => {
        c.backend_failure_mappings = [mapping('portal.down', 'target_unavailable'), mapping('portal.down', 'backend_error')];
      }),
    ).toEqual([shape('backend_failure_mappings', 'expected a list of backend failure mappings with distinct backend_error_code values')]);
    expect(
      errorsOf((c) => {
        c.backend_failure_mappings = [mapping('portal.down', 'target_unavailable'), mapping('portal.error', 'target_unavailable')];
      }),
    ).toEqual([]);
  });

  it('maps only to a failure class the contract declares', () => {
    expect(
      errorsOf((c) => {
        c.backend_failure_mappings = [mapping('portal.down', 'target_unavailable'), mapping('portal.timeout', 'timeout')];
      }),
    ).toEqual([
      invalid(
        'backend_failure_mappings.1.failure_class',
        `backend failure mapping "portal.timeout" maps to failure class timeout, which action contract "${NAME}" does not declare (declared: precondition_unsatisfied, target_unavailable, backend_error, unknown): add it to ${AT}.failure_classes or map to a declared class.`,
      ),
    ]);
    expect(
      errorsOf((c) => {
        c.failure_classes.push('timeout');
        c.backend_failure_mappings = [mapping('portal.down', 'target_unavailable'), mapping('portal.timeout', 'timeout')];
      }),
    ).toEqual([]);
  });
});

describe('interactions', () => {
  const interaction = (interactionClass: string, refs: Yaml = {}) => ({
    interaction_class: interactionClass,
    target: 'nodes.customer-portal.services.http',
    rationale: 'Probes share the portal.',
    ...refs,
  });

  it('types each interaction: a class, a non-blank target and rationale, non-blank refs (repeats allowed)', () => {
    expect(
      errorsOf((c) => {
        c.interactions = [
          { ...interaction('contention', { shared_state_refs: ['portal-session', ''] }), target: ' ' },
          interaction('cooperation', { related_actions: [NAME] }),
        ];
      }),
    ).toEqual([
      shape('interactions.0.target', 'expected a non-blank string'),
      shape('interactions.0.shared_state_refs', 'expected a list of non-blank refs'),
      shape('interactions.1.interaction_class', 'expected one of coordination, contention, interference, shared_state_change'),
    ]);
    expect(errorsOf((c) => (c.interactions = [interaction('contention', { shared_state_refs: ['portal-session', 'portal-session'] })]))).toEqual([]);
  });

  it.each([
    ['coordination', 'related_actions', 'the action contracts it coordinates with'],
    ['interference', 'related_actions', 'the action contracts it interferes with'],
    ['contention', 'shared_state_refs', 'the shared state it contends for'],
    ['shared_state_change', 'shared_state_refs', 'the shared state it changes'],
  ])('requires a %s interaction to list %s', (interactionClass, field, what) => {
    const other = field === 'related_actions' ? { shared_state_refs: ['portal-session'] } : { related_actions: [NAME] };
    expect(errorsOf((c) => (c.interactions = [interaction(interactionClass, other)]))).toEqual([
      invalid('interactions.0', `a ${interactionClass} interaction needs ${field}: list ${what} in ${AT}.interactions.0.${field}.`),
    ]);
    const given = field === 'related_actions' ? { related_actions: [NAME] } : { shared_state_refs: ['portal-session'] };
    expect(errorsOf((c) => (c.interactions = [interaction(interactionClass, given)]))).toEqual([]);
  });

  it('requires related_actions to name declared action contracts, by bare name', () => {
    expect(errorsOf((c) => (c.interactions = [interaction('coordination', { related_actions: [`action_contracts.${NAME}`] })]))).toEqual([
      {
        code: 'scenario.reference-unresolved',
        address: `${AT}.interactions.0.related_actions.0`,
        message: expect.stringContaining(`names action contract "action_contracts.${NAME}", which is not declared under action_contracts (declared: ${NAME})`),
      },
    ]);
  });
});

describe('external mappings', () => {
  const external = { system: 'MITRE ATT&CK', identifier: 'T1190', loss_label: 'partial', rationale: 'Only the probe, not the exploit.' };

  it('types each mapping: system, identifier, loss_label and rationale, none blank', () => {
    expect(
      errorsOf((c) => {
        c.external_mappings = [{ ...external, identifier: ' ' }, { system: 'x', identifier: 'y', loss_label: 'z' }, { ...external, url: 'u' }];
      }),
    ).toEqual([
      shape('external_mappings.0.identifier', 'expected a non-blank string'),
      shape('external_mappings.1.rationale', 'missing required field'),
      { code: 'scenario.key-unknown', address: `${AT}.external_mappings.2.url`, message: expect.stringContaining('unknown key "url"') },
    ]);
    expect(errorsOf((c) => (c.external_mappings = [external]))).toEqual([]);
  });
});

describe('temporal contracts and backend timing disclosures', () => {
  const withTiming = (c: Yaml, contractEdit: Yaml = {}, disclosureEdit: Yaml = {}): void => {
    c.temporal_contracts = [{ ...scheduleTemporalContract(), ...contractEdit }];
    c.backend_timing_disclosures = [{ ...pacingDisclosure(), ...disclosureEdit }];
  };

  it('types each temporal contract: its kind, time domain and event points, non-blank texts', () => {
    expect(
      errorsOf((c) =>
        withTiming(c, { temporal_kind: 'window', time_domain: 'tick', clock_authority: '', window_ref: ' ', backend_disclosure_refs: ['probe-pacing', 'probe-pacing'] }),
      ),
    ).toEqual([
      shape('temporal_contracts.0.temporal_kind', 'expected one of schedule, cadence, deadline, dwell, latency, time_window, timeout, cooldown'),
      shape('temporal_contracts.0.time_domain', 'expected one of episode_step, scenario_time, simulation_time, backend_time, wall_clock_time'),
      shape('temporal_contracts.0.clock_authority', 'expected a non-blank string'),
      shape('temporal_contracts.0.window_ref', 'expected a non-blank string'),
      shape('temporal_contracts.0.backend_disclosure_refs', 'expected a list of distinct, non-blank disclosure ids'),
    ]);
    expect(errorsOf((c) => withTiming(c, { event_points: [] }))).toEqual([shape('temporal_contracts.0.event_points', 'expected a non-empty list of distinct event points')]);
    expect(errorsOf((c) => withTiming(c, { event_points: ['submit', 'submit'] }))).toEqual([shape('temporal_contracts.0.event_points')]);
    expect(errorsOf((c) => withTiming(c, { event_points: ['queued'] }))).toEqual([shape('temporal_contracts.0.event_points.0', 'expected one of submit, start, end, ')]);
    expect(errorsOf((c) => withTiming(c, { ordering_basis: undefined }))).toEqual([shape('temporal_contracts.0.ordering_basis', 'missing required field')]);
    // An optional text may be null, which is absent.
    expect(errorsOf((c) => withTiming(c, { randomization_basis: null, duration_ref: null }))).toEqual([]);
  });

  it('types each timing disclosure: kind, support mode, non-empty affected ids, distinct limitations', () => {
    expect(errorsOf((c) => withTiming(c, {}, { disclosure_kind: 'drift', support_mode: 'best_effort', description: ' ' }))).toEqual([
      shape('backend_timing_disclosures.0.disclosure_kind', 'expected one of pacing, dilation, synchronization, serialization, unsupported_guarantee'),
      shape('backend_timing_disclosures.0.support_mode', 'expected one of exact, bounded, disclosed_limitation, unsupported'),
      shape('backend_timing_disclosures.0.description', 'expected a non-blank string'),
    ]);
    expect(errorsOf((c) => withTiming(c, {}, { affected_temporal_ids: [] }))).toEqual([
      shape('backend_timing_disclosures.0.affected_temporal_ids', 'expected a non-empty list of distinct, non-blank temporal ids'),
    ]);
    expect(errorsOf((c) => withTiming(c, {}, { support_mode: 'bounded', limitations: ['jitter', 'jitter'] }))).toEqual([
      shape('backend_timing_disclosures.0.limitations', 'expected a list of distinct, non-blank limitations'),
    ]);
  });

  it('refuses a temporal_id or disclosure_id declared twice', () => {
    expect(
      errorsOf((c) => {
        withTiming(c);
        c.temporal_contracts.push(scheduleTemporalContract());
        c.backend_timing_disclosures.push(pacingDisclosure());
      }),
    ).toEqual([
      shape('temporal_contracts', 'expected a list of temporal contracts with distinct temporal_id values'),
      shape('backend_timing_disclosures', 'expected a list of backend timing disclosures with distinct disclosure_id values'),
    ]);
  });

  it.each([
    ['schedule', { window_ref: null }, 'window_ref'],
    ['time_window', { event_points: ['window_open', 'window_close'] }, 'window_ref, reset_boundary, replay_boundary, randomization_basis'],
    ['dwell', { event_points: ['start', 'end'], window_ref: 'w' }, 'duration_ref, reset_boundary, replay_boundary'],
    ['cadence', { event_points: ['start'], duration_ref: 'd', reset_boundary: 'r', replay_boundary: 'p' }, 'randomization_basis'],
    ['deadline', { event_points: ['deadline', 'end'], duration_ref: 'd', reset_boundary: 'r' }, 'replay_boundary'],
    ['latency', { event_points: ['start', 'end'] }, 'duration_ref, reset_boundary, replay_boundary'],
    ['timeout', { event_points: ['end'], duration_ref: 'd', replay_boundary: 'p' }, 'reset_boundary'],
    ['cooldown', { event_points: ['end'], reset_boundary: 'r', replay_boundary: 'p' }, 'duration_ref'],
  ])('requires the fields of a %s temporal contract', (kind, edit, missing) => {
    const base = { temporal_kind: kind, window_ref: null, ...edit };
    expect(errorsOf((c) => withTiming(c, base))).toEqual([
      invalid('temporal_contracts.0', `${kind} temporal contract "probe-schedule" needs ${missing}: set ${missing.includes(',') ? 'them' : 'it'} in ${AT}.temporal_contracts.0.`),
    ]);
    const complete = Object.fromEntries(missing.split(', ').map((field) => [field, 'authored']));
    expect(errorsOf((c) => withTiming(c, { ...base, ...complete }))).toEqual([]);
  });

  it('requires backend_disclosure_refs of every temporal contract', () => {
    expect(errorsOf((c) => withTiming(c, { backend_disclosure_refs: [] }))).toEqual([
      invalid('temporal_contracts.0', `schedule temporal contract "probe-schedule" needs backend_disclosure_refs: set it in ${AT}.temporal_contracts.0.`),
    ]);
  });

  const full = { window_ref: 'w', duration_ref: 'd', reset_boundary: 'r', replay_boundary: 'p', randomization_basis: 'b' };
  it.each([
    ['schedule', ['end', 'observed'], 'submit or start', ['start']],
    ['time_window', ['window_open', 'end'], 'both window_open and window_close', ['window_open', 'window_close']],
    ['deadline', ['deadline'], 'at least two points', ['deadline', 'observed']],
    ['deadline', ['start', 'end'], 'deadline', ['deadline', 'end']],
    ['deadline', ['deadline', 'start'], 'end, observed or effective', ['deadline', 'effective']],
    ['dwell', ['start'], 'at least two points', ['start', 'end']],
    ['dwell', ['start', 'window_open'], 'start or window_open, and end or window_close', ['window_open', 'window_close']],
    ['cadence', ['end', 'reset'], 'submit, start, observed or effective', ['observed']],
    ['latency', ['submit'], 'at least two points', ['submit', 'observed']],
  ])('requires the event points of a %s temporal contract (%j)', (kind, points, need, fixed) => {
    expect(errorsOf((c) => withTiming(c, { ...full, temporal_kind: kind, event_points: points }))).toEqual([
      invalid('temporal_contracts.0.event_points', `${kind} temporal contract "probe-schedule" needs ${need} among its event_points: add what is missing to ${AT}.temporal_contracts.0.event_points.`),
    ]);
    expect(errorsOf((c) => withTiming(c, { ...full, temporal_kind: kind, event_points: fixed }))).toEqual([]);
  });

  it.each(['bounded', 'disclosed_limitation', 'unsupported'])('requires limitations of a %s timing disclosure', (mode) => {
    expect(errorsOf((c) => withTiming(c, {}, { support_mode: mode }))).toEqual([
      invalid(
        'backend_timing_disclosures.0',
        `timing disclosure "probe-pacing" has support_mode ${mode} but no limitations: list what the backend does not guarantee in ${AT}.backend_timing_disclosures.0.limitations, or use support_mode exact.`,
      ),
    ]);
    expect(errorsOf((c) => withTiming(c, {}, { support_mode: mode, limitations: ['ticks may slip by one'] }))).toEqual([]);
  });

  it('requires the disclosures a temporal contract names and the temporal contracts a disclosure names', () => {
    expect(errorsOf((c) => withTiming(c, { backend_disclosure_refs: ['probe-pacing', 'probe-serialization'] }, { affected_temporal_ids: ['probe-schedule', 'probe-deadline'] }))).toEqual([
      invalid(
        'temporal_contracts.0.backend_disclosure_refs',
        `temporal contract "probe-schedule" names backend timing disclosures probe-serialization, which action contract "${NAME}" does not declare: declare them in ${AT}.backend_timing_disclosures or fix the refs.`,
      ),
      invalid(
        'backend_timing_disclosures.0.affected_temporal_ids',
        `timing disclosure "probe-pacing" names temporal contracts probe-deadline, which action contract "${NAME}" does not declare: declare them in ${AT}.temporal_contracts or fix the ids.`,
      ),
    ]);
    expect(
      errorsOf((c) => {
        c.temporal_contracts = [scheduleTemporalContract()];
      }),
    ).toEqual([invalid('temporal_contracts.0.backend_disclosure_refs', 'names backend timing disclosures probe-pacing, which action contract')]);
    expect(errorsOf((c) => withTiming(c))).toEqual([]);
  });

  it('refuses timing disclosures without temporal contracts', () => {
    expect(
      errorsOf((c) => {
        c.backend_timing_disclosures = [pacingDisclosure()];
      }),
    ).toEqual([
      invalid(
        'backend_timing_disclosures',
        `action contract "${NAME}" declares backend_timing_disclosures but no temporal_contracts: declare the temporal contracts they disclose in ${AT}.temporal_contracts, or remove the disclosures.`,
      ),
    ]);
  });

  it('requires temporal contracts of a contract with temporal preconditions', () => {
    const temporalPrecondition = { precondition_id: 'within-window', precondition_class: 'temporal', description: 'The probe window is open.' };
    expect(errorsOf((c) => c.preconditions.push(temporalPrecondition))).toEqual([
      invalid(
        'preconditions',
        `action contract "${NAME}" has temporal preconditions ("within-window") but no temporal_contracts: declare the temporal contracts they rest on in ${AT}.temporal_contracts, or give them another precondition_class.`,
      ),
    ]);
    expect(
      errorsOf((c) => {
        c.preconditions.push(temporalPrecondition);
        withTiming(c);
      }),
    ).toEqual([]);
  });
});

describe('arguments', () => {
  const argument = (edit: Yaml = {}) => ({
    value_type: 'string',
    normalization: 'identity',
    normalization_disclosure_ref: 'disclosures.argument-normalization',
    omission: 'reject',
    omission_disclosure_ref: 'disclosures.argument-omission',
    loss_disclosure_ref: 'disclosures.argument-loss',
    ...edit,
  });
  const withArgument = (edit: Yaml) => errorsOf((c) => (c.arguments = { path: argument(edit) }));
  const problem = (message: string) => [invalid('arguments.path', `argument "path": ${message}`)];

  it('names each argument by a portable identifier', () => {
    expect(errorsOf((c) => (c.arguments = { Path: argument(), 'login.path': argument(), path_2: argument() }))).toEqual([
      shape('arguments.Path', `the name "Path" at ${AT}.arguments.Path is not a portable identifier: use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit.`),
      shape('arguments.login.path', 'the name "login.path"'),
    ]);
    expect(errorsOf((c) => (c.arguments = null))).toEqual([shape('arguments', `expected a mapping of action arguments at ${AT}.arguments, got null.`)]);
  });

  it('types each argument: its closed values, its disclosure refs, its values and bounds', () => {
    expect(errorsOf((c) => (c.arguments = { path: { ...argument(), loss_disclosure_ref: undefined, value_type: 'text', cardinality: null, hint: 'x' } }))).toEqual([
      { code: 'scenario.key-unknown', address: `${AT}.arguments.path.hint`, message: expect.stringContaining('unknown key "hint"') },
      shape('arguments.path.value_type', 'expected one of string, integer, number, boolean, reference'),
      shape('arguments.path.loss_disclosure_ref', 'missing required field'),
      shape('arguments.path.cardinality', 'expected one of one, many'),
    ]);
    expect(withArgument({ default_disclosure_ref: ' ', allowed_values: [['x']], default: { x: 1 }, minimum: '0x10', min_length: -1, unique_items: null })).toEqual([
      shape('arguments.path.default', 'expected a string, a number, true or false, or a list of them'),
      shape('arguments.path.allowed_values.0', 'expected a string, a number, true or false at'),
      shape('arguments.path.minimum', 'expected a number at'),
      shape('arguments.path.min_length', 'expected an integer from 0 to 9007199254740991'),
      shape('arguments.path.unique_items', 'expected true or false'),
      shape('arguments.path.default_disclosure_ref', 'expected a non-blank string'),
    ]);
  });

  it('reads bounds and flags as pydantic does: numbers written as strings, floats as numbers, yes as true', () => {
    expect(withArgument({ value_type: 'number', minimum: ' 1_000.5 ', maximum: '1e4', allowed_values: [2000] })).toEqual([]);
    expect(withArgument({ value_type: 'number', minimum: '1e4', allowed_values: [2000] })).toEqual(problem('allowed_values must satisfy minimum (10000): 2000 is below it'));
    expect(withArgument({ cardinality: 'many', min_items: '2', max_items: 3.0, unique_items: 'no' })).toEqual([]);
    expect(withArgument({ cardinality: 'many', min_items: '3', max_items: true })).toEqual(problem('min_items (3) exceeds max_items (1): lower min_items or raise max_items'));
  });

  it.each([
    [{ min_items: 1 }, 'min_items and max_items require cardinality many: set cardinality to many or remove them', { cardinality: 'many', min_items: 1 }],
    [{ omission: 'use_default', default: ['a'], default_disclosure_ref: 'd' }, 'a single-valued argument takes a single default, not a list', { omission: 'use_default', default: 'a', default_disclosure_ref: 'd' }],
    [{ cardinality: 'many', omission: 'use_default', default: 'a', default_disclosure_ref: 'd' }, 'a many-valued argument takes a list as its default', { cardinality: 'many', omission: 'use_default', default: ['a'], default_disclosure_ref: 'd' }],
    [{ cardinality: 'many', min_items: 2, omission: 'use_default', default: ['a'], default_disclosure_ref: 'd' }, 'the default must satisfy min_items (2)', { cardinality: 'many', min_items: 2, omission: 'use_default', default: ['a', 'b'], default_disclosure_ref: 'd' }],
    [{ cardinality: 'many', max_items: 1, omission: 'use_default', default: ['a', 'b'], default_disclosure_ref: 'd' }, 'the default must satisfy max_items (1)', { cardinality: 'many', max_items: 2, omission: 'use_default', default: ['a', 'b'], default_disclosure_ref: 'd' }],
    [{ cardinality: 'many', omission: 'use_default', default: ['a', 'a'], default_disclosure_ref: 'd' }, 'the default entries must be unique', { cardinality: 'many', unique_items: false, omission: 'use_default', default: ['a', 'a'], default_disclosure_ref: 'd' }],
    [{ minimum: 1 }, 'minimum and maximum require an integer or number argument', { value_type: 'integer', minimum: 1 }],
    [{ value_type: 'number', minimum: 2, maximum: 1.5 }, 'minimum (2) exceeds maximum (1.5)', { value_type: 'number', minimum: 1.5, maximum: 2 }],
    [{ value_type: 'boolean', max_length: 4 }, 'min_length and max_length require a string or reference argument', { value_type: 'reference', max_length: 4 }],
    [{ min_length: 3, max_length: 2 }, 'min_length (3) exceeds max_length (2)', { min_length: 2, max_length: 2 }],
    [{ value_type: 'reference', normalization: 'trim' }, 'a reference argument is not normalized: set normalization to identity', { value_type: 'reference' }],
    [{ value_type: 'integer', allowed_values: [1, true] }, 'allowed_values must match value_type integer, but true is a boolean', { value_type: 'integer', allowed_values: [1, 2] }],
    [{ allowed_values: ['/login', '/login'] }, 'allowed_values lists "/login" twice: list each value once', { allowed_values: ['/login', '/logout'] }],
    [{ normalization: 'trim', allowed_values: ['/login', ' /login '] }, 'allowed_values lists "/login" twice once trimmed', { allowed_values: ['/login', ' /login '] }],
    [{ min_length: 2, allowed_values: ['/'] }, 'allowed_values must satisfy min_length (2): "/" is shorter', { min_length: 1, allowed_values: ['/'] }],
    [{ max_length: 1, allowed_values: ['😀😀'] }, 'allowed_values must satisfy max_length (1): "😀😀" is longer', { max_length: 2, allowed_values: ['😀😀'] }],
    [{ value_type: 'integer', maximum: 8, allowed_values: [8, 9] }, 'allowed_values must satisfy maximum (8): 9 is above it', { value_type: 'integer', maximum: 9, allowed_values: [8, 9] }],
    [{ value_type: 'number', omission: 'use_default', default: '1', default_disclosure_ref: 'd' }, 'the default must match value_type number, but "1" is a string', { value_type: 'number', omission: 'use_default', default: 1, default_disclosure_ref: 'd' }],
    [{ allowed_values: ['/login'], omission: 'use_default', default: '/logout', default_disclosure_ref: 'd' }, 'the default "/logout" is not one of allowed_values', { allowed_values: ['/login'], omission: 'use_default', default: '/login', default_disclosure_ref: 'd' }],
    [{ max_length: 6, omission: 'use_default', default: ' /login ', default_disclosure_ref: 'd' }, 'the default must satisfy max_length (6): " /login " is longer', { normalization: 'trim', max_length: 6, allowed_values: ['/login'], omission: 'use_default', default: ' /login ', default_disclosure_ref: 'd' }],
    [{ omission: 'use_default', default: '/login' }, 'omission use_default needs a default and a default_disclosure_ref: set both', { omission: 'use_default', default: '/login', default_disclosure_ref: 'd' }],
    [{ omission: 'omit', default_disclosure_ref: 'd' }, "a default and default_disclosure_ref apply only with omission use_default (this argument's omission is omit)", { omission: 'omit' }],
  ])('checks the domain of an argument %j as RAES does', (edit, message, fixed) => {
    expect(withArgument(edit)).toEqual(problem(message));
    expect(withArgument(fixed)).toEqual([]);
  });

  describe('numbers as YAML writes them: 3.0 is a float to RAES, 3 an integer', () => {
    /** The example with one argument written as YAML lines, so numbers keep their spelling. */
    const withArgumentLines = (...lines: string[]) =>
      errorsOfText(
        portalProbeWith((doc) => {
          contract(doc).arguments = { path: argument({ value_type: undefined, omission: 'use_default', default_disclosure_ref: 'd' }) };
        }).replace(/^( +)default_disclosure_ref: d\n/m, (line, indent: string) => [line, ...lines.map((l) => `${indent}${l}\n`)].join('')),
      );

    it('refuses a float where the argument takes integers, and keeps integers however written', () => {
      expect(withArgumentLines('value_type: integer', 'default: 3.0')).toEqual(
        problem('the default must match value_type integer, but 3.0 is a float: write an integer (without a point or exponent), or change value_type.'),
      );
      expect(withArgumentLines('value_type: integer', 'default: 1e3')).toEqual(problem('the default must match value_type integer, but 1e3 is a float'));
      expect(withArgumentLines('value_type: integer', 'default: 3', 'allowed_values: [0x3, 0o4, -5]', 'minimum: -5.0')).toEqual([]);
    });

    it('tells 1 from 1.0 where the argument takes numbers, as RAES compares them', () => {
      expect(withArgumentLines('value_type: number', 'default: 1', 'allowed_values: [1.0, 2]')).toEqual(problem('the default 1 is not one of allowed_values'));
      expect(withArgumentLines('value_type: number', 'default: 1.0', 'allowed_values: [1, 1.0]')).toEqual([]);
      expect(withArgumentLines('value_type: number', 'default: 1', 'allowed_values: [1.0, 1e0]')).toEqual(problem('allowed_values lists 1e0 twice'));
      expect(withArgumentLines('value_type: number', 'default: 1', 'allowed_values: [0x10, 16, 1]')).toEqual(problem('allowed_values lists 16 twice'));
    });

    it('compares whole numbers beyond 2^53 exactly, as written', () => {
      expect(withArgumentLines('value_type: integer', 'default: 9007199254740993', 'allowed_values: [9007199254740993, 9007199254740992]')).toEqual([]);
      expect(withArgumentLines('value_type: integer', 'default: 9007199254740993', 'allowed_values: [9007199254740992]')).toEqual(
        problem('the default 9007199254740993 is not one of allowed_values'),
      );
    });
  });
});
