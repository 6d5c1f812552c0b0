import type { InvocationEvent } from '../invocation';
import type { AttemptOutcome } from '../scheduler';

/** What a progress display can follow; never carries tool arguments or results. */
export type RuntimeProgress =
  | { readonly kind: 'invocation_opened'; readonly invocation_action_instance_id: string; readonly tick: number }
  | {
      readonly kind: 'invocation_closed';
      readonly invocation_action_instance_id: string;
      readonly outcome: AttemptOutcome;
      readonly indeterminate_action_ids: readonly string[];
      readonly recovered: boolean;
    }
  | { readonly kind: 'tool_action_admitted'; readonly action_instance_id: string; readonly tool_call_id: string }
  | { readonly kind: 'tool_action_settled'; readonly action_instance_id: string; readonly settlement: string }
  | { readonly kind: 'scheduler_stopped'; readonly participant_address: string; readonly reason: string }
  | { readonly kind: 'storage_failure'; readonly reason: string };

export type ProgressCallback = (progress: RuntimeProgress) => void;

/** Hands one progress report to the callback, if any. */
export const reportProgress = (progress: RuntimeProgress, onProgress: ProgressCallback | undefined): void => {
  try {
    onProgress?.(progress);
  } catch {
    // A failing display never stops the engine.
  }
};

/** Tells a progress callback which tool actions the events admitted and settled. */
export const reportToolProgress = (events: readonly InvocationEvent[], onProgress: ProgressCallback | undefined): void => {
  if (onProgress === undefined) return;
  for (const event of events) {
    try {
      if (event.type === 'ToolActionAdmitted') {
        onProgress({ kind: 'tool_action_admitted', action_instance_id: event.action_instance_id, tool_call_id: event.tool_call_id });
      } else if (event.type === 'ToolActionSettled') {
        onProgress({ kind: 'tool_action_settled', action_instance_id: event.action_instance_id, settlement: event.settlement });
      }
    } catch {
      // A failing display never stops the engine.
    }
  }
};
