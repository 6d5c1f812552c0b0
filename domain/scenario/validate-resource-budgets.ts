import { exactAuthoredInteger } from './authored-values';
import { MAX_RESOURCE_AMOUNT, ResourceBudgetDimensionDocument, ResourceBudgetDocument } from './document';
import { DiagnosticCode } from './diagnostics';
import { RESOURCE_ACCOUNTING, RESOURCE_KINDS, RESOURCE_UNITS } from './raes-vocabulary';

/**
 * The rules RAES 3.3's models check of a v3 policy's resource budget beyond each field's shape
 * (raes/participant_resource_budgets.py: ParticipantResourceBudgetDimension._validate_dimension,
 * ParticipantResourceBudgetPolicy._validate_policy; raes/participant_execution.py:
 * ParticipantAutonomousExecutionPolicyV3._validate_concurrency_projection). Where RAES stops at its
 * first problem, each problem is reported.
 */

/** RAES compares participant refs with their `agents.` prefix removed. */
const withoutAgentsPrefix = (ref: string): string => (ref.startsWith('agents.') ? ref.slice('agents.'.length) : ref);

type Report = (code: DiagnosticCode, message: string, at?: string) => void;
const INVALID: DiagnosticCode = 'participant.autonomous-execution-activity-invalid';

/** A dimension with its limit and reservation exactly as RAES reads them. */
interface Dimension {
  readonly id: string;
  readonly at: string;
  readonly doc: ResourceBudgetDimensionDocument;
  readonly limit: bigint;
  readonly reservation: bigint;
}

/** What a parent dimension must share with its children (_dimension_semantics). */
const semantics = (d: ResourceBudgetDimensionDocument): string => JSON.stringify([d.resource_kind, d.unit, d.accounting_mode, d.meter_profile_ref]);

/** One dimension's own rules (_validate_dimension). */
const checkDimension = ({ id, doc, limit, reservation, at }: Dimension, report: Report): void => {
  const unit = RESOURCE_UNITS[doc.resource_kind];
  if (doc.unit !== unit) report(INVALID, `resource budget dimension "${id}" counts ${doc.resource_kind} in "${doc.unit}": set ${at}.unit to "${unit}".`);
  const modes = RESOURCE_ACCOUNTING[doc.resource_kind];
  if (!modes.includes(doc.accounting_mode)) {
    report(INVALID, `resource budget dimension "${id}" accounts ${doc.resource_kind} as ${doc.accounting_mode}: set ${at}.accounting_mode to ${modes.join(' or ')}.`);
  }
  if (reservation > limit) report(INVALID, `resource budget dimension "${id}" reserves ${reservation}, more than its limit ${limit}: lower ${at}.reservation or raise limit.`);
  const windowed = doc.accounting_mode === 'windowed_counter';
  const hasWindow = (doc.window_ticks ?? null) !== null;
  if (windowed && !hasWindow) report(INVALID, `resource budget dimension "${id}" is a windowed_counter without window_ticks: set ${at}.window_ticks.`);
  if (!windowed && hasWindow) report(INVALID, `resource budget dimension "${id}" sets window_ticks, which only a windowed_counter takes: remove ${at}.window_ticks.`);
  if (doc.resource_kind === 'storage_growth' && doc.reset !== 'reconciled') {
    report(INVALID, `resource budget dimension "${id}" budgets storage_growth, which resets only when reconciled: set ${at}.reset to reconciled.`);
  }
};

/** How dimensions aggregate into their parents: known, acyclic, alike, and within the parent's limit (_validate_parent_graph). */
const checkParents = (dimensions: ReadonlyMap<string, Dimension>, at: string, report: Report): void => {
  const children = new Map<string, Dimension[]>();
  for (const dimension of dimensions.values()) {
    const parentId = dimension.doc.parent_budget_ref ?? null;
    if (parentId === null) continue;
    const parent = dimensions.get(parentId);
    if (parent === undefined) {
      report(INVALID, `resource budget dimension "${dimension.id}" names parent_budget_ref "${parentId}", which is not a dimension of ${at}.dimensions: name a declared dimension or remove it.`);
      continue;
    }
    children.set(parentId, [...(children.get(parentId) ?? []), dimension]);
    if (semantics(dimension.doc) !== semantics(parent.doc)) {
      report(
        INVALID,
        `resource budget dimension "${dimension.id}" aggregates into "${parentId}", which counts another resource: a parent has the same resource_kind, unit, accounting_mode and meter_profile_ref as its children.`,
      );
    }
    if (dimension.limit > parent.limit) report(INVALID, `resource budget dimension "${dimension.id}" has a limit above its parent "${parentId}"'s: lower ${dimension.at}.limit.`);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const cyclic = (id: string): boolean => {
    if (state.get(id) === 'visiting') return true;
    if (state.get(id) === 'done') return false;
    state.set(id, 'visiting');
    const parentId = dimensions.get(id)?.doc.parent_budget_ref ?? null;
    const found = parentId !== null && dimensions.has(parentId) && cyclic(parentId);
    state.set(id, 'done');
    return found;
  };
  if ([...dimensions.keys()].some(cyclic)) report(INVALID, `the parent_budget_ref links of ${at}.dimensions form a cycle: remove one.`);
  for (const [parentId, siblings] of children) {
    const total = siblings.reduce((sum, child) => sum + child.limit, 0n);
    const parent = dimensions.get(parentId) as Dimension;
    if (total > parent.limit) {
      report(INVALID, `the dimensions aggregating into "${parentId}" have limits summing to ${total}, above its limit ${parent.limit}: lower their limits or raise the parent's.`);
    }
  }
};

/**
 * Every rule of a v3 policy's resource budget at `policyAt` (the policy's path), and, as RAES's
 * validator checks it (raes/validator/_participant_resource_budget_owners.py), that a participant owner
 * is one of the specification's `participantRefs`. `authoredNumbers` gives a limit or reservation
 * written beyond 2^53 - 1 exactly; one beyond RAES's bound is a shape error.
 */
export const checkResourceBudget = (
  budget: ResourceBudgetDocument,
  maxInFlight: number,
  participantRefs: ReadonlyArray<string>,
  policyAt: string,
  authoredNumbers: ReadonlyMap<string, string>,
  report: Report,
): void => {
  const at = `${policyAt}.resource_budget`;
  const participants = new Set(participantRefs.map(withoutAgentsPrefix));
  for (const [id, owner] of Object.entries(budget.owners)) {
    if (owner.kind === 'participant' && !participants.has(withoutAgentsPrefix(owner.ref))) {
      report(
        'participant.autonomous-execution-outside-specification',
        `resource owner "${id}" is participant "${owner.ref}", which is not in the specification's participant_refs: set ${at}.owners.${id}.ref to one of ${participantRefs.join(', ') || '(none)'}, or add it there.`,
      );
    }
  }
  const dimensions = new Map<string, Dimension>();
  for (const [id, doc] of Object.entries(budget.dimensions)) {
    const here = `${at}.dimensions.${id}`;
    const exact = (field: 'limit' | 'reservation'): bigint => {
      const value = exactAuthoredInteger(doc[field], authoredNumbers.get(`${here}.${field}`));
      if (value > MAX_RESOURCE_AMOUNT) {
        report('scenario.shape-invalid', `expected an integer from 1 to ${MAX_RESOURCE_AMOUNT} at ${here}.${field}, got ${value}.`, `${here}.${field}`);
      }
      return value;
    };
    dimensions.set(id, { id, at: here, doc, limit: exact('limit'), reservation: exact('reservation') });
  }
  for (const dimension of dimensions.values()) checkDimension(dimension, report);

  const kinds = new Set([...dimensions.values()].map((d) => d.doc.resource_kind));
  const missing = RESOURCE_KINDS.filter((kind) => !kinds.has(kind));
  if (missing.length > 0) report(INVALID, `${at}.dimensions budgets no ${missing.join(', ')}: a resource budget covers every resource kind, so add a dimension for each.`);

  const pools = new Map<string, string>();
  for (const { id, doc, at: here } of dimensions.values()) {
    const owner = budget.owners[doc.owner_ref];
    if (owner === undefined) {
      report(INVALID, `resource budget dimension "${id}" names owner_ref "${doc.owner_ref}", which is not an owner of ${at}.owners: declare it or fix the name.`);
      continue;
    }
    if (owner.kind !== 'participant' && doc.reset === 'episode') {
      report(INVALID, `resource budget dimension "${id}" is owned by a ${owner.kind}, which cannot reset with an episode: set ${here}.reset to time_segment, run or reconciled.`);
    }
    const pool = JSON.stringify([doc.pool_ref, owner.kind, owner.ref, doc.resource_kind, doc.unit, doc.accounting_mode, doc.meter_profile_ref]);
    const same = pools.get(pool);
    if (same !== undefined) {
      report(INVALID, `resource budget dimensions "${same}" and "${id}" budget the same pool (pool_ref, owner, resource, unit, mode and meter): merge them or tell their pools apart.`);
    } else pools.set(pool, id);
  }
  checkParents(dimensions, at, report);

  const concurrency = [...dimensions.values()].filter((d) => d.doc.resource_kind === 'concurrent_actions' && budget.owners[d.doc.owner_ref]?.kind === 'participant');
  const only = concurrency[0];
  if (concurrency.length !== 1 || only === undefined) {
    report(
      INVALID,
      `a v3 policy needs exactly one participant-owned concurrent_actions dimension in ${at}.dimensions, not ${concurrency.length}: ${concurrency.length === 0 ? 'add one' : 'keep one'}.`,
    );
  } else if (only.limit !== BigInt(maxInFlight)) {
    report(INVALID, `the participant's concurrent_actions budget "${only.id}" has limit ${only.limit}, but the policy's max_in_flight is ${maxInFlight}: make them equal.`);
  }
};
