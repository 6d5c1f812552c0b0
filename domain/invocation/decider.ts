import type { InvocationCommand } from './commands';
import { decide } from './decide';
import type { Decision } from './decision';
import type { InvocationEvent } from './events';
import { evolve, initialState } from './evolve';
import type { InvocationState } from './state';

/** The invocation aggregate as a decider: the only place that knows the rules of a tool action. */
export interface InvocationDecider {
  readonly initialState: () => InvocationState;
  readonly evolve: (state: InvocationState, event: InvocationEvent) => InvocationState;
  readonly decide: (command: InvocationCommand, state: InvocationState) => Decision;
}

export const invocationDecider: InvocationDecider = { initialState, evolve, decide };
