import type { Registration } from '../manifest';
import type { ForeignEvent } from '../ports/unreadable-event';
import type { InvocationAggregate } from './aggregates';
import type { PortEventListener } from './local-invocation-port';
import type { RefusalListener } from './port-refusals';
import type { PolicyParticipant, PolicyParticipants } from './policy-participants';
import type { RuntimeProgress } from './progress';
import type { RuntimeManagerOptions } from './runtime-options';

/** The runtime manager's state, as its attempts, recovery, operator commands and lookups share it. */
export interface RuntimeContext {
  readonly options: RuntimeManagerOptions;
  readonly registration: Registration;
  readonly schedulers: PolicyParticipants;
  /** Schedulers held back by another policy's unresolved indeterminate action (reported once per hold). */
  readonly held: Set<PolicyParticipant>;
  /** The invocations open now, by invocation id. */
  readonly running: Map<string, InvocationAggregate>;
  /** Read by every port at admission time (docs/rules.md, admission rule 9). */
  readonly crossingPolicy: { installed: boolean };
  /** One listener for every port (a closure per port would be held by each open invocation). */
  readonly portListener: PortEventListener | undefined;
  /** Told of every refused port call (RuntimeManagerOptions.onRefusal). */
  readonly refusalListener: RefusalListener | undefined;
  /** Whether this engine runs the participant now (always, without several engines on the store). */
  owns(participantAddress: string): boolean;
  /** The clock's time as an ISO string. */
  now(): string;
  /** Reports progress; a failing display never stops the engine. */
  progress(progress: RuntimeProgress): void;
}

/** Waits for a load and turns a store that failed into an error naming what was being read (the event, when the stream holds one the engine did not write). */
export const must = async (loading: Promise<{ kind: 'loaded' } | { kind: 'unavailable'; reason: string; foreign?: ForeignEvent }>, what: string): Promise<void> => {
  const loaded = await loading;
  if (loaded.kind === 'unavailable') throw loaded.foreign ?? new Error(`${what}: ${loaded.reason}`);
};
