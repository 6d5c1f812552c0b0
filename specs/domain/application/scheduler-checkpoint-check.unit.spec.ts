import * as E from 'fp-ts/Either';
import fc from 'fast-check';
import { SchedulerCheckpointCheck } from '../../../domain/application';
import { IntegrityVerifier, type IntegrityFinding, type VerifiedEvent } from '../../../domain/integrity/verify';
import type { JsonValue } from '../../../domain/ports/event-store';
import { SCHEDULER_CHECKPOINT_ATTEMPTS, schedulerDecider, type SchedulerCommand, type SchedulerEvent, type SchedulerPolicy } from '../../../domain/scheduler';
import { schedulerStream } from '../../../domain/streams';

/** The audit checks that every scheduler checkpoint records the state its stream's events before it fold to. */

const at = '2026-01-01T00:00:00.000Z';

const policy = (participant: string): SchedulerPolicy => ({
  policy_address: 'participant.autonomous-execution.s',
  participant_address: participant,
  clock_address: 'time.clock.k',
  action_order: ['participant.action-contract.x'],
  start_tick: 0,
  cadence_ticks: 1,
  max_action_attempts: 1000,
  max_in_flight: 2,
  failure_policy: 'continue',
});

/**
 * One attempt after another, `attempts` of them, each finished with an indeterminate action when
 * `indeterminate` says so: the scheduler then stops, and its action is resolved and it is restarted.
 */
/** A scheduler deciding commands in turn, its events kept; a refusal throws. */
const deciding = () => {
  let state = schedulerDecider.initialState();
  const events: SchedulerEvent[] = [];
  const decide = (command: SchedulerCommand): void => {
    const decision = schedulerDecider.decide(command, state);
    if (E.isLeft(decision)) throw new Error(decision.left.message);
    for (const event of decision.right) {
      state = schedulerDecider.evolve(state, event);
      events.push(event);
    }
  };
  return { events, decide, stopped: () => state.status === 'stopped' };
};

const schedulerEvents = (participant: string, attempts: number, indeterminate: (attempt: number) => boolean = () => false): SchedulerEvent[] => {
  const scheduling = policy(participant);
  const { events, decide, stopped } = deciding();
  for (let attempt = 1; attempt <= attempts; attempt++) {
    decide({ type: 'StartAttempt', policy: scheduling, tick: attempt, at });
    const unresolved = indeterminate(attempt) ? [`attempt-${attempt}:tool=1`] : [];
    decide({ type: 'FinishAttempt', policy: scheduling, attempt, outcome: 'succeeded', indeterminate_action_ids: unresolved, at });
    if (stopped()) {
      for (const id of unresolved) decide({ type: 'RecordResolution', action_instance_id: id, at });
      decide({ type: 'RestartScheduler', at });
    }
  }
  return events;
};

/** The events of each participant's scheduler interleaved in position order, as a store holds them. */
const recorded = (streams: readonly (readonly SchedulerEvent[])[], participants: readonly string[]): VerifiedEvent[] => {
  const out: VerifiedEvent[] = [];
  const revisions = streams.map(() => 0);
  for (let index = 0; out.length < streams.reduce((sum, events) => sum + events.length, 0); index++) {
    streams.forEach((events, which) => {
      const event = events[revisions[which]!];
      if (event === undefined || index % (which + 1) !== 0) return;
      out.push({
        stream: schedulerStream('episode-1', 'participant.autonomous-execution.s', participants[which]!),
        revision: BigInt(revisions[which]!),
        position: BigInt(out.length + 1),
        type: event.type,
        data: JSON.parse(JSON.stringify(event)) as JsonValue,
        metadata: undefined,
      });
      revisions[which]! += 1;
    });
  }
  return out;
};

const findingsOf = (events: readonly VerifiedEvent[]): readonly IntegrityFinding[] => {
  const verifier = new IntegrityVerifier(false, [new SchedulerCheckpointCheck()]);
  for (const event of events) verifier.add(event);
  return verifier.report().findings;
};

const checkpointsOf = (events: readonly VerifiedEvent[]): VerifiedEvent[] => events.filter((event) => event.type === 'SchedulerCheckpointed');

/** The event with its checkpoint's state member changed. */
const withState = (event: VerifiedEvent, change: (state: Record<string, JsonValue>) => void): VerifiedEvent => {
  const data = JSON.parse(JSON.stringify(event.data)) as { state: Record<string, JsonValue> };
  change(data.state);
  return { ...event, data: data as unknown as JsonValue };
};

describe('the audit of scheduler checkpoints', () => {
  const participants = ['participant.behavior.a', 'participant.behavior.b'];
  const history = recorded([schedulerEvents(participants[0]!, 200, (attempt) => attempt === 64 || attempt % 50 === 0), schedulerEvents(participants[1]!, 130)], participants);

  it('finds nothing in the history the scheduler wrote, checkpoints of several streams interleaved', () => {
    expect(checkpointsOf(history).length).toBe(Math.floor(200 / SCHEDULER_CHECKPOINT_ATTEMPTS) + Math.floor(130 / SCHEDULER_CHECKPOINT_ATTEMPTS));
    expect(findingsOf(history)).toEqual([]);
  });

  it('names the checkpoint whose state its events do not give, and the member that differs', () => {
    const target = checkpointsOf(history).filter((event) => event.stream === history[0]!.stream)[1]!;
    const altered = history.map((event) => (event === target ? withState(event, (state) => (state.attempts_started = 7)) : event));
    const findings = findingsOf(altered);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: 'checkpoint_mismatch', position: String(target.position), stream: target.stream, revision: String(target.revision) });
    expect(findings[0]!.message).toContain('records attempts_started 7 where the scheduler\'s events before it give 128');
  });

  it('finds a checkpoint that forgets an unresolved action, and one that holds no scheduler state', () => {
    const [first, , third] = checkpointsOf(history).filter((event) => event.stream === history[0]!.stream);
    expect(first!.stream).toBe(third!.stream);
    const altered = history.map((event) => {
      if (event === first) return withState(event, (state) => (state.unresolved = []));
      if (event === third) return { ...event, data: { type: 'SchedulerCheckpointed', at, state: { attempts_started: 'many' } } };
      return event;
    });
    const findings = findingsOf(altered);
    expect(findings.map((finding) => [finding.code, finding.position])).toEqual([
      ['checkpoint_mismatch', String(first!.position)],
      ['checkpoint_mismatch', String(third!.position)],
    ]);
    expect(findings[0]!.message).toContain('records unresolved [] where');
    expect(findings[1]!.message).toContain('does not hold a scheduler\'s state');
  });

  it('judges a checkpoint by the events before it, not by the checkpoints before it', () => {
    const [first, second] = checkpointsOf(history).filter((event) => event.stream === history[0]!.stream);
    // The first checkpoint is wrong; the second, right, is judged by the fold of the events, so it is not found too.
    const findings = findingsOf(history.map((event) => (event === first ? withState(event, (state) => (state.execution_generation = 3)) : event)));
    expect(findings.map((finding) => finding.position)).toEqual([String(first!.position)]);
    expect(second).toBeDefined();
  });

  it('reads the attempts in flight as a set: listed in another order, they are the same state', () => {
    const scheduling = { ...policy(participants[0]!), max_in_flight: 3 };
    const { events, decide } = deciding();
    for (let attempt = 1; attempt <= 66; attempt++) {
      decide({ type: 'StartAttempt', policy: scheduling, tick: attempt, at });
      if (attempt < 64) decide({ type: 'FinishAttempt', policy: scheduling, attempt, outcome: 'succeeded', indeterminate_action_ids: [], at });
    }
    decide({ type: 'FinishAttempt', policy: scheduling, attempt: 64, outcome: 'succeeded', indeterminate_action_ids: [], at });
    const stream = recorded([events], participants);
    const [checkpoint] = checkpointsOf(stream);
    expect((checkpoint!.data as { state: { in_flight: unknown[] } }).state.in_flight).toHaveLength(2);
    const reordered = stream.map((event) => (event === checkpoint ? withState(event, (held) => (held.in_flight = [...(held.in_flight as JsonValue[])].reverse())) : event));
    expect(findingsOf(reordered)).toEqual([]);
    const dropped = stream.map((event) => (event === checkpoint ? withState(event, (held) => (held.in_flight = (held.in_flight as JsonValue[]).slice(1))) : event));
    expect(findingsOf(dropped).map((finding) => finding.code)).toEqual(['checkpoint_mismatch']);
  });

  it('leaves a stream it cannot follow unjudged: a removed event is the chain check\'s finding', () => {
    const removed = history.filter((event) => !(event.stream === history[0]!.stream && event.revision === 5n));
    expect(findingsOf(removed).map((finding) => finding.code)).toEqual(['revision_gap']);
  });

  it('finds, over any run of attempts, exactly the checkpoints changed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: SCHEDULER_CHECKPOINT_ATTEMPTS, max: 3 * SCHEDULER_CHECKPOINT_ATTEMPTS + 5 }),
        fc.func(fc.boolean()),
        fc.array(fc.nat()),
        fc.constantFrom('attempts_started', 'execution_generation', 'last_tick', 'status', 'unresolved', 'in_flight'),
        (attempts, indeterminate, picks, member) => {
          const events = recorded([schedulerEvents(participants[0]!, attempts, (attempt) => indeterminate(attempt))], participants);
          const checkpoints = checkpointsOf(events);
          const changed = new Set(picks.map((pick) => checkpoints[pick % checkpoints.length]!));
          const change = (state: Record<string, JsonValue>) => {
            const value = state[member];
            if (typeof value === 'number') state[member] = value + 1;
            else if (member === 'in_flight') state[member] = [...(value as JsonValue[]), [999, 'attempt-999']];
            else if (member === 'unresolved') state[member] = [...(value as JsonValue[]), 'attempt-999:tool=1'];
            else state[member] = value === 'running' ? 'stopped' : 'running';
          };
          const findings = findingsOf(events.map((event) => (changed.has(event) ? withState(event, change) : event)));
          expect(findings.map((finding) => finding.position)).toEqual(checkpoints.filter((event) => changed.has(event)).map((event) => String(event.position)));
          expect(findings.every((finding) => finding.code === 'checkpoint_mismatch' && finding.message.includes(`records ${member} `))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
