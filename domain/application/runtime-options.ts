import type { ManifestDocument } from '../manifest';
import type { CompiledScenario } from '../scenario';
import type { EventStore } from '../ports/event-store';
import type { InvocationToolActionPort } from '../ports/invocation-port';
import type { OpenInvocationsIndex } from '../ports/open-invocations';
import type { RemoteAccess, RemotePortGrants } from '../ports/remote-ports';
import type { ParticipantRuntime } from './participant-runtime';
import type { RuntimeProgress } from './progress';
import type { RefusalListener } from './port-refusals';

/** What a RuntimeManager is built from: the scenario, the manifest, the runtime and the ports it drives. */
export interface RuntimeManagerOptions {
  readonly compiled: CompiledScenario;
  readonly manifest: ManifestDocument;
  readonly runtime: ParticipantRuntime;
  readonly store: EventStore;
  readonly episodeId: string;
  readonly clock: () => Date;
  readonly crossingPolicyInstalled?: boolean;
  /** The open invocations recovery starts from, kept current by the manager (adapters/views keeps one). */
  readonly openInvocations?: OpenInvocationsIndex;
  /** When given, each attached port is also reachable over it with a per-invocation secret. */
  readonly remotePorts?: RemotePortGrants;
  readonly onProgress?: (progress: RuntimeProgress) => void;
  /**
   * Told of every refused port call with its fixed code (a refusal appends nothing, so the log cannot
   * show it); telemetry subscribes here. It never changes the answer.
   */
  readonly onRefusal?: RefusalListener;
  /**
   * With several engines on one store: which participants this engine runs now (the ones whose lease
   * it holds). start() then recovers only those, and `takeOver` the ones it gets later. Without it the
   * engine runs every participant (one engine per store).
   */
  readonly ownership?: ParticipantOwnership;
}

/** Answers whether this engine runs a participant at this moment. */
export interface ParticipantOwnership {
  holds(participantAddress: string): boolean;
}

/** The port handed to `attachInvocationToolActions`; `remote` is present when remote ports are on. */
export interface AttachedPort extends InvocationToolActionPort {
  readonly remote?: RemoteAccess;
}
