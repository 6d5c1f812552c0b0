import type { BehaviorHistoryEvent, HistoryEventType } from '../../domain/invocation';

/**
 * The audit of stored history (docs/rules.md, history), pure: every settled action has exactly its triple,
 * admission ordinals run 1, 2, 3... in each invocation, and an invocation's tool triples come
 * immediately before its outer triple. Each broken rule is a finding with a sentence; none means sound.
 */

export type AuditFindingCode =
  | 'triple_incomplete'
  | 'triple_split'
  | 'ordinal_not_contiguous'
  | 'ordinal_out_of_order'
  | 'triple_after_outer'
  | 'triple_not_adjacent_to_outer';

export interface AuditFinding {
  readonly code: AuditFindingCode;
  readonly invocation_action_instance_id: string;
  readonly action_instance_id: string | null;
  readonly message: string;
}

const TRIPLE: readonly HistoryEventType[] = ['action_attempted', 'state_transition_recorded', 'observation_emitted'];

type ActionEntry = { readonly invocation: string; readonly positions: number[]; readonly ordinal: number | null };

const invocationOf = (event: BehaviorHistoryEvent): string =>
  event.invocation_tool_context?.invocation_action_instance_id ?? event.action_instance_id;

const checkTriple = (history: readonly BehaviorHistoryEvent[], actionId: string, entry: ActionEntry, firstRow: number, findings: AuditFinding[]): void => {
  const types = entry.positions.map((position) => history[position]!.event_type);
  const kind = entry.ordinal === null ? 'the outer action' : `tool action ${actionId}`;
  if (types.length !== 3 || types.some((type, i) => type !== TRIPLE[i])) {
    findings.push({
      code: 'triple_incomplete',
      invocation_action_instance_id: entry.invocation,
      action_instance_id: actionId,
      message: `${kind} of invocation ${entry.invocation} has events [${types.join(', ')}], expected exactly [${TRIPLE.join(', ')}]`,
    });
    return;
  }
  const [first, second, third] = entry.positions as [number, number, number];
  if (second !== first + 1 || third !== first + 2) {
    findings.push({
      code: 'triple_split',
      invocation_action_instance_id: entry.invocation,
      action_instance_id: actionId,
      message: `the triple of ${kind} of invocation ${entry.invocation} is split across rows ${firstRow + first}, ${firstRow + second}, ${firstRow + third}`,
    });
  }
};

const checkOrdinals = (invocation: string, ordinals: readonly number[], findings: AuditFinding[]): void => {
  const sorted = [...ordinals].sort((a, b) => a - b);
  if (sorted.some((ordinal, i) => ordinal !== i + 1)) {
    findings.push({
      code: 'ordinal_not_contiguous',
      invocation_action_instance_id: invocation,
      action_instance_id: null,
      message: `invocation ${invocation} has admission ordinals [${sorted.join(', ')}], expected 1 to ${sorted.length} each once`,
    });
  } else if (ordinals.some((ordinal, i) => ordinal !== i + 1)) {
    findings.push({
      code: 'ordinal_out_of_order',
      invocation_action_instance_id: invocation,
      action_instance_id: null,
      message: `invocation ${invocation} records its tool actions in the order [${ordinals.join(', ')}], expected admission order`,
    });
  }
};

const checkOuterPlacement = (
  invocation: string,
  toolPositions: readonly number[],
  outerFirst: number,
  firstRow: number,
  findings: AuditFinding[],
): void => {
  if (toolPositions.length === 0) return;
  const last = toolPositions[toolPositions.length - 1]!;
  if (last > outerFirst) {
    findings.push({
      code: 'triple_after_outer',
      invocation_action_instance_id: invocation,
      action_instance_id: null,
      message: `invocation ${invocation} has tool-action events after its outer triple (row ${firstRow + last} after row ${firstRow + outerFirst})`,
    });
    return;
  }
  const first = toolPositions[0]!;
  if (first !== outerFirst - toolPositions.length) {
    findings.push({
      code: 'triple_not_adjacent_to_outer',
      invocation_action_instance_id: invocation,
      action_instance_id: null,
      message: `invocation ${invocation}'s tool triples (rows ${firstRow + first} to ${firstRow + last}) do not come immediately before its outer triple (row ${firstRow + outerFirst})`,
    });
  }
};

/**
 * `firstRow` is the row of `history[0]` in a longer history: every rule concerns one invocation's
 * events, so a reader can verify a history one invocation at a time and name the same rows.
 */
export const verifyHistory = (history: readonly BehaviorHistoryEvent[], firstRow = 0): readonly AuditFinding[] => {
  const actions = new Map<string, ActionEntry>();
  /** Per invocation: ordinals in the order their triples start, and the rows of its tool events. */
  const invocations = new Map<string, { ordinals: number[]; toolPositions: number[] }>();
  for (let position = 0; position < history.length; position++) {
    const event = history[position]!;
    const context = event.invocation_tool_context;
    let entry = actions.get(event.action_instance_id);
    if (entry === undefined) {
      entry = { invocation: invocationOf(event), positions: [], ordinal: context?.admission_ordinal ?? null };
      actions.set(event.action_instance_id, entry);
    }
    entry.positions.push(position);
    if (context === undefined) continue;
    let invocation = invocations.get(context.invocation_action_instance_id);
    if (invocation === undefined) {
      invocation = { ordinals: [], toolPositions: [] };
      invocations.set(context.invocation_action_instance_id, invocation);
    }
    invocation.toolPositions.push(position);
    if (event.event_type === 'action_attempted') invocation.ordinals.push(context.admission_ordinal);
  }

  const findings: AuditFinding[] = [];
  for (const [actionId, entry] of actions) checkTriple(history, actionId, entry, firstRow, findings);
  for (const [invocationId, invocation] of invocations) {
    checkOrdinals(invocationId, invocation.ordinals, findings);
    const outer = actions.get(invocationId);
    if (outer !== undefined && outer.ordinal === null) {
      checkOuterPlacement(invocationId, invocation.toolPositions, outer.positions[0]!, firstRow, findings);
    }
  }
  return findings;
};
