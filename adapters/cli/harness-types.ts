import type { ParticipantRuntime } from '../../domain/application';
import type { AffordanceBinding } from '../../domain/invocation/admission-context';
import type { RemotePortServer } from '../http';

/** A harness as `run` and `demo` hold it, and what they start one with. */

export interface StartedHarness {
  readonly runtime: ParticipantRuntime;
  /** The remote port server the manager grants each port on (the command harness). */
  readonly remotePorts?: RemotePortServer;
  /** Stops the MCP server and the portal; nothing of the harness runs after it resolves. */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** One line per tool call as the harness saw it (identities and outcomes only). */
  readonly onCall: (line: string) => void;
  /** Scripted harness: how long each tool call runs. */
  readonly toolDelayMs?: number;
  /** The scenario's affordance bindings: the gateway lists only the tools afforded to the participant. */
  readonly bindings?: readonly AffordanceBinding[];
}
