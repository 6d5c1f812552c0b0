import { POLICY_ADDRESS, Yaml, activityPolicyOf, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * A v3 policy's resource budget as RAES 3.3 types and checks it (raes/participant_resource_budgets.py:
 * ParticipantResourceBudgetPolicy and its dimensions; ParticipantAutonomousExecutionPolicyV3). The example's
 * policy is made a v3 policy with a budget RAES accepts; every refusal and acceptance below was checked
 * against RAES's own models.
 */

const V3 = 'participant-autonomous-execution/v3';
const POLICY = 'behavior_specifications.participant-behavior.autonomous_execution';
const AT = `${POLICY}.resource_budget`;
const policy = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'].autonomous_execution;
const budget = (doc: Yaml): Yaml => policy(doc).resource_budget;
const dimension = (doc: Yaml, id: string): Yaml => budget(doc).dimensions[id];
/** A copy of a dimension under another id, changed by `more`. */
const addDimension = (doc: Yaml, id: string, from: string, more: Yaml): void => {
  budget(doc).dimensions[id] = { ...dimension(doc, from), ...more };
};
/** The v3 fixture with the tokens dimension's limit and reservation written as given (numbers beyond 2^53 - 1 stay exact in the text). */
const withTokenAmounts = (limit: string, reservation: string): string => {
  const text = portalProbeWith((doc) => activityPolicyOf(doc, V3));
  const written = text.replace(/(\n( +)tokens:\n(?:\2 .*\n)*?\2 +)limit: 10\n(\2 +)reservation: 1\n/, `$1limit: ${limit}\n$3reservation: ${reservation}\n`);
  expect(written).not.toEqual(text);
  return written;
};
const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const errorsOf = (edit: (b: Yaml, doc: Yaml) => void) =>
  errorsOfText(
    portalProbeWith((doc) => {
      activityPolicyOf(doc, V3);
      edit(budget(doc), doc);
    }),
  );
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);
const invalid = (message: string | RegExp) => expectedDiagnostic('participant.autonomous-execution-activity-invalid', POLICY_ADDRESS, message);

describe("a resource budget's fields", () => {
  it('accepts the budget of the fixture: every resource kind, one participant concurrency budget equal to max_in_flight', () => {
    expect(errorsOf(() => undefined)).toEqual([]);
  });

  it('requires a resource budget of a v3 policy', () => {
    expect(errorsOf((b, doc) => delete policy(doc).resource_budget)).toEqual([
      { code: 'scenario.shape-invalid', address: `${POLICY}.resource_budget`, message: `missing required field ${POLICY}.resource_budget: add a mapping (ResourceBudget).` },
    ]);
  });

  it('takes portable identifiers for policy_id, owner and dimension names, owner_ref and parent_budget_ref', () => {
    expect(errorsOf((b) => (b.policy_id = 'Probe'))).toEqual([shape('policy_id', 'expected a portable identifier')]);
    expect(errorsOf((b) => (b.owners = { Agent: { kind: 'participant', ref: 'participant-agent' } }))).toEqual(
      expect.arrayContaining([shape('owners.Agent', `the name "Agent" at ${AT}.owners.Agent is not a portable identifier`)]),
    );
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').parent_budget_ref = 'Other'))).toEqual([shape('dimensions.tokens.parent_budget_ref', 'expected a portable identifier')]);
  });

  it('requires at least one owner and one dimension', () => {
    expect(errorsOf((b) => (b.owners = {}))).toEqual([shape('owners', `expected a mapping of 1 to 1024 resource owners at ${AT}.owners, got {}.`)]);
    expect(errorsOf((b) => (b.dimensions = {}))).toEqual([shape('dimensions', `expected a mapping of 1 to 4096 resource budget dimensions at ${AT}.dimensions, got {}.`)]);
  });

  it('refuses an empty owner ref or fairness text, but not a blank one (RAES types them min_length=1)', () => {
    expect(errorsOf((b) => (b.owners.agent.ref = ''))).toEqual([shape('owners.agent.ref', 'expected a non-empty string')]);
    expect(errorsOf((b) => (b.fairness.policy = ''))).toEqual([shape('fairness.policy', 'expected a non-empty string')]);
    expect(errorsOf((b) => (b.fairness.borrowing = ' '))).toEqual([]);
  });

  it("bounds fairness's numbers and reads them, and protected, as pydantic does", () => {
    expect(errorsOf((b) => (b.fairness.weight = 0))).toEqual([shape('fairness.weight', `expected an integer from 1 to 1000000 at ${AT}.fairness.weight, got 0.`)]);
    expect(errorsOf((b) => (b.fairness.weight = 1_000_001))).toEqual([shape('fairness.weight')]);
    expect(errorsOf((b) => (b.fairness.max_queue_ticks = -1))).toEqual([shape('fairness.max_queue_ticks', 'expected an integer from 0 to 1000000000')]);
    expect(errorsOf((b) => (b.fairness.starvation_bound_ticks = 0))).toEqual([shape('fairness.starvation_bound_ticks', 'expected an integer from 1 to 1000000000')]);
    expect(errorsOf((b) => (b.fairness.protected = 'maybe'))).toEqual([shape('fairness.protected', 'expected true or false')]);
    expect(
      errorsOf((b) => {
        b.fairness.weight = '5';
        b.fairness.protected = 'yes';
      }),
    ).toEqual([]);
  });

  it('takes only the listed resource kinds and accounting modes, as written', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'accelerator').resource_kind = 'gpu'))).toEqual([shape('dimensions.accelerator.resource_kind', 'expected one of action_rate')]);
    expect(errorsOf((b, doc) => (dimension(doc, 'accelerator').accounting_mode = 'Lease'))).toEqual([shape('dimensions.accelerator.accounting_mode', 'expected one of windowed_counter')]);
  });

  it('bounds limit and reservation from 1 to 10^18, exactly', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').limit = 0))).toEqual([
      shape('dimensions.tokens.limit', `expected an integer from 1 to 1000000000000000000 at ${AT}.dimensions.tokens.limit, got 0.`),
    ]);
    expect(errorsOfText(withTokenAmounts('1000000000000000001', '1'))).toEqual([
      shape('dimensions.tokens.limit', `expected an integer from 1 to 1000000000000000000 at ${AT}.dimensions.tokens.limit, got 1000000000000000001.`),
    ]);
    expect(errorsOfText(withTokenAmounts('1000000000000000000', '1000000000000000000'))).toEqual([]);
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').limit = '1_000'))).toEqual([]);
  });

  it('refuses a window_ticks below 1, and a blank, repeated or 1025th evidence ref', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'actions').window_ticks = 0))).toEqual([shape('dimensions.actions.window_ticks', 'expected an integer from 1 to 1000000000')]);
    for (const refs of [['a', 'a'], ['\u0085'], Array.from({ length: 1025 }, (_, i) => `e${i}`)]) {
      expect(errorsOf((b, doc) => (dimension(doc, 'tokens').evidence_refs = refs))).toEqual([
        shape('dimensions.tokens.evidence_refs', 'expected a list of at most 1024 distinct, non-blank refs'),
      ]);
    }
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').evidence_refs = ['\ufeff']))).toEqual([]);
  });

  it('refuses an unknown key in a dimension', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').extra = 1))).toEqual([
      { code: 'scenario.key-unknown', address: `${AT}.dimensions.tokens.extra`, message: expect.stringContaining('unknown key "extra"') },
    ]);
  });
});

describe("what a dimension needs by its resource kind", () => {
  it('counts each kind in its unit', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').unit = 'words'))).toEqual([
      invalid(`resource budget dimension "tokens" counts inference_tokens in "words": set ${AT}.dimensions.tokens.unit to "tokens".`),
    ]);
  });

  it('accounts each kind in a mode it admits', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').accounting_mode = 'lease'))).toEqual([
      invalid(`resource budget dimension "tokens" accounts inference_tokens as lease: set ${AT}.dimensions.tokens.accounting_mode to windowed_counter or cumulative_counter.`),
    ]);
  });

  it('reserves no more than its limit', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').reservation = 11))).toEqual([
      invalid(`resource budget dimension "tokens" reserves 11, more than its limit 10: lower ${AT}.dimensions.tokens.reservation or raise limit.`),
    ]);
  });

  it('has window_ticks exactly when it is a windowed_counter', () => {
    expect(errorsOf((b, doc) => delete dimension(doc, 'actions').window_ticks)).toEqual([
      invalid(`resource budget dimension "actions" is a windowed_counter without window_ticks: set ${AT}.dimensions.actions.window_ticks.`),
    ]);
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').window_ticks = 5))).toEqual([
      invalid(`resource budget dimension "tokens" sets window_ticks, which only a windowed_counter takes: remove ${AT}.dimensions.tokens.window_ticks.`),
    ]);
    expect(
      errorsOf((b, doc) => {
        dimension(doc, 'tokens').accounting_mode = 'windowed_counter';
        dimension(doc, 'tokens').window_ticks = 5;
      }),
    ).toEqual([]);
  });

  it('resets storage_growth only when reconciled', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'storage').reset = 'run'))).toEqual([
      invalid(`resource budget dimension "storage" budgets storage_growth, which resets only when reconciled: set ${AT}.dimensions.storage.reset to reconciled.`),
    ]);
  });
});

describe('how a budget holds together', () => {
  it('covers every resource kind', () => {
    expect(errorsOf((b, doc) => Object.assign(dimension(doc, 'accelerator'), { resource_kind: 'inference_tokens', unit: 'tokens', accounting_mode: 'cumulative_counter', pool_ref: 'more-tokens' }))).toEqual([
      invalid(`${AT}.dimensions budgets no accelerator: a resource budget covers every resource kind, so add a dimension for each.`),
    ]);
  });

  it("names a declared owner, and resets with an episode only what a participant owns", () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').owner_ref = 'nobody'))).toEqual([
      invalid(`resource budget dimension "tokens" names owner_ref "nobody", which is not an owner of ${AT}.owners: declare it or fix the name.`),
    ]);
    expect(
      errorsOf((b, doc) => {
        b.owners.fleet = { kind: 'fleet', ref: 'probe-fleet' };
        dimension(doc, 'tokens').owner_ref = 'fleet';
      }),
    ).toEqual([
      invalid(`resource budget dimension "tokens" is owned by a fleet, which cannot reset with an episode: set ${AT}.dimensions.tokens.reset to time_segment, run or reconciled.`),
    ]);
    expect(
      errorsOf((b, doc) => {
        b.owners.fleet = { kind: 'fleet', ref: 'probe-fleet' };
        Object.assign(dimension(doc, 'tokens'), { owner_ref: 'fleet', reset: 'run' });
      }),
    ).toEqual([]);
  });

  it("owns participant budgets only by the specification's participants", () => {
    expect(errorsOf((b) => (b.owners.agent.ref = 'someone-else'))).toEqual([
      {
        code: 'participant.autonomous-execution-outside-specification',
        address: POLICY_ADDRESS,
        message: `resource owner "agent" is participant "someone-else", which is not in the specification's participant_refs: set ${AT}.owners.agent.ref to one of participant-agent, or add it there.`,
      },
    ]);
    expect(errorsOf((b) => (b.owners.agent.ref = 'agents.participant-agent'))).toEqual([]);
  });

  it('aggregates a dimension into a declared parent of the same resource, unit, mode and meter, within its limit', () => {
    expect(errorsOf((b, doc) => addDimension(doc, 'child', 'tokens', { pool_ref: 'child-pool', limit: 4, parent_budget_ref: 'tokens' }))).toEqual([]);
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').parent_budget_ref = 'nowhere'))).toEqual([
      invalid(`resource budget dimension "tokens" names parent_budget_ref "nowhere", which is not a dimension of ${AT}.dimensions: name a declared dimension or remove it.`),
    ]);
    expect(errorsOf((b, doc) => addDimension(doc, 'child', 'tokens', { pool_ref: 'child-pool', limit: 4, meter_profile_ref: 'other', parent_budget_ref: 'tokens' }))).toEqual([
      invalid('resource budget dimension "child" aggregates into "tokens", which counts another resource: a parent has the same resource_kind, unit, accounting_mode and meter_profile_ref as its children.'),
    ]);
    expect(errorsOf((b, doc) => addDimension(doc, 'child', 'tokens', { pool_ref: 'child-pool', limit: 11, parent_budget_ref: 'tokens' }))).toEqual([
      invalid(`resource budget dimension "child" has a limit above its parent "tokens"'s: lower ${AT}.dimensions.child.limit.`),
      invalid('the dimensions aggregating into "tokens" have limits summing to 11, above its limit 10: lower their limits or raise the parent\'s.'),
    ]);
    expect(
      errorsOf((b, doc) => {
        addDimension(doc, 'first', 'tokens', { pool_ref: 'first', limit: 6, parent_budget_ref: 'tokens' });
        addDimension(doc, 'second', 'tokens', { pool_ref: 'second', limit: 5, parent_budget_ref: 'tokens' });
      }),
    ).toEqual([invalid('the dimensions aggregating into "tokens" have limits summing to 11, above its limit 10: lower their limits or raise the parent\'s.')]);
  });

  it('refuses a cycle of parents', () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'tokens').parent_budget_ref = 'tokens'))).toEqual([
      invalid(`the parent_budget_ref links of ${AT}.dimensions form a cycle: remove one.`),
    ]);
    expect(
      errorsOf((b, doc) => {
        addDimension(doc, 'first', 'tokens', { pool_ref: 'first', limit: 5, parent_budget_ref: 'second' });
        addDimension(doc, 'second', 'tokens', { pool_ref: 'second', limit: 5, parent_budget_ref: 'first' });
      }),
    ).toEqual([invalid(`the parent_budget_ref links of ${AT}.dimensions form a cycle: remove one.`)]);
  });

  it('refuses two dimensions of one pool, and takes them for pools of different owners', () => {
    expect(errorsOf((b, doc) => addDimension(doc, 'again', 'tokens', {}))).toEqual([
      invalid('resource budget dimensions "tokens" and "again" budget the same pool (pool_ref, owner, resource, unit, mode and meter): merge them or tell their pools apart.'),
    ]);
    expect(
      errorsOf((b, doc) => {
        b.owners.pool = { kind: 'fleet', ref: 'probe-fleet' };
        addDimension(doc, 'again', 'tokens', { owner_ref: 'pool', reset: 'run' });
      }),
    ).toEqual([]);
  });
});

describe("a v3 policy's concurrency budget", () => {
  it('needs exactly one participant-owned concurrent_actions dimension', () => {
    expect(
      errorsOf((b, doc) => {
        b.owners.fleet = { kind: 'fleet', ref: 'probe-fleet' };
        Object.assign(dimension(doc, 'concurrency'), { owner_ref: 'fleet', reset: 'run' });
      }),
    ).toEqual([invalid(`a v3 policy needs exactly one participant-owned concurrent_actions dimension in ${AT}.dimensions, not 0: add one.`)]);
    expect(errorsOf((b, doc) => addDimension(doc, 'more', 'concurrency', { pool_ref: 'more' }))).toEqual([
      invalid(`a v3 policy needs exactly one participant-owned concurrent_actions dimension in ${AT}.dimensions, not 2: keep one.`),
    ]);
  });

  it("limits it to the policy's max_in_flight", () => {
    expect(errorsOf((b, doc) => (dimension(doc, 'concurrency').limit = 2))).toEqual([
      invalid('the participant\'s concurrent_actions budget "concurrency" has limit 2, but the policy\'s max_in_flight is 1: make them equal.'),
    ]);
    expect(
      errorsOf((b, doc) => {
        dimension(doc, 'concurrency').limit = 2;
        policy(doc).max_in_flight = 2;
      }),
    ).toEqual([]);
  });
});
