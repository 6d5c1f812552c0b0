/**
 * given(events).when(command).then(...): a decider spec reads like a row of the failure table.
 * The state is folded from the given events with the decider's own evolve, so a spec exercises
 * evolve and decide together.
 */
type RefusedAnswer<Refused> = { readonly kind: 'refused'; readonly refusal: Refused };

export interface Decider<Command, Event, State, Answer extends { readonly kind: string }> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => { readonly events: readonly Event[]; readonly answer: Answer };
}

export interface Outcome<Event, State, Answer, Refused> {
  /** The command is accepted and yields exactly these events. */
  then(expected: readonly Event[]): void;
  /** The command is accepted and yields no events (an idempotent replay). */
  thenNothingHappens(): void;
  /** The command is refused with this code; returns the refusal for further checks. */
  thenRefuses(code: string): Refused;
  /** The events the command yields, for specs that check parts of them. */
  events(): readonly Event[];
  /** What the decision answers beside its events. */
  answer(): Answer;
  /** The state after the given events and the command's events. */
  stateAfter(): State;
}

export const deciderSpecification = <
  Command,
  Event,
  State,
  Refused extends { readonly code: string },
  Answer extends { readonly kind: string } = { readonly kind: string },
>(
  decider: Decider<Command, Event, State, Answer>,
) => ({
  given: (givenEvents: readonly Event[]) => {
    const fold = (events: readonly Event[], from: State): State => {
      let state = from;
      for (const event of events) state = decider.evolve(state, event);
      return state;
    };
    const givenState = (): State => fold(givenEvents, decider.initialState());
    return {
      state: givenState,
      when: (command: Command): Outcome<Event, State, Answer, Refused> => {
        const decided = () => decider.decide(command, givenState());
        const accepted = (): readonly Event[] => {
          const result = decided();
          if (result.answer.kind === 'refused') {
            throw new Error(`expected the command to be accepted, it was refused: ${JSON.stringify(result.answer)}`);
          }
          return result.events;
        };
        return {
          then: (expected) => expect(accepted()).toEqual(expected),
          thenNothingHappens: () => expect(accepted()).toEqual([]),
          thenRefuses: (code) => {
            const result = decided();
            if (result.answer.kind !== 'refused') {
              throw new Error(`expected refusal ${code}, the command was accepted with ${JSON.stringify(result.events)}`);
            }
            // A refusal records nothing.
            expect(result.events).toEqual([]);
            const refused = (result.answer as unknown as RefusedAnswer<Refused>).refusal;
            expect(refused.code).toBe(code);
            return refused;
          },
          events: accepted,
          answer: () => decided().answer,
          stateAfter: () => fold(accepted(), givenState()),
        };
      },
    };
  },
});
