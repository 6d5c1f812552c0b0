import { invocationHistory, type BehaviorHistoryEvent } from '../../../domain/invocation';
import { verifyHistory } from '../../../projections/participant-history';
import { InvocationDriver, participant, runReturningInvocation } from '../support/world';

/** Real histories from the invocation decider, then damaged one rule at a time. */
const returningHistory = async (attempt: number, calls = 2): Promise<BehaviorHistoryEvent[]> => {
  const driver = await runReturningInvocation(undefined, participant('prober'), attempt, calls);
  return [...invocationHistory(driver.events)];
};

const threwWithIndeterminate = async (): Promise<BehaviorHistoryEvent[]> => {
  const driver = new InvocationDriver(undefined, participant('prober'), 9);
  await driver.open();
  await driver.activate();
  const first = await driver.admit();
  await driver.dispatch(first);
  await driver.reportUnknown(first);
  await driver.admit(); // never dispatched: withheld at close
  await driver.throwFromHarness();
  return [...invocationHistory(driver.events)];
};

const codes = (history: readonly BehaviorHistoryEvent[]) => verifyHistory(history).map((finding) => finding.code);

describe('the history audit', () => {
  it('finds nothing in sound histories of several invocations, returned or thrown', async () => {
    const history = [...(await returningHistory(1)), ...(await threwWithIndeterminate()), ...(await returningHistory(2, 0))];
    expect(history.length).toBe(12 + 6 + 6);
    expect(verifyHistory(history)).toEqual([]);
  });

  it('reports a triple that lost an event', async () => {
    const history = await returningHistory(1);
    history.splice(1, 1);
    expect(verifyHistory(history)).toEqual([
      expect.objectContaining({
        code: 'triple_incomplete',
        action_instance_id: history[0]!.action_instance_id,
        message: expect.stringContaining('has events [action_attempted, observation_emitted]'),
      }),
    ]);
  });

  it('reports a triple with a duplicated event', async () => {
    const history = await returningHistory(1);
    history.splice(3, 0, history[2]!);
    expect(codes(history)).toContain('triple_incomplete');
  });

  it('reports a triple split by another action', async () => {
    const history = await returningHistory(1);
    // rows: a1 a2 a3 | b1 b2 b3 | ... ; move b1 between a1 and a2
    const [b1] = history.splice(3, 1);
    history.splice(1, 0, b1!);
    expect(codes(history)).toEqual(expect.arrayContaining(['triple_split']));
  });

  it('reports admission ordinals with a gap', async () => {
    const history = await returningHistory(1);
    history.splice(3, 3); // drop the whole triple of ordinal 2
    expect(verifyHistory(history)).toEqual([
      expect.objectContaining({ code: 'ordinal_not_contiguous', message: expect.stringContaining('[1, 3], expected 1 to 2') }),
    ]);
  });

  it('reports triples recorded out of admission order', async () => {
    const history = await returningHistory(1);
    const second = history.splice(3, 3);
    history.splice(0, 0, ...second);
    expect(codes(history)).toEqual(['ordinal_out_of_order']);
  });

  it('reports tool triples after their outer triple', async () => {
    const history = await returningHistory(1);
    const outer = history.splice(history.length - 3, 3);
    history.splice(3, 0, ...outer);
    expect(codes(history)).toEqual(['triple_after_outer']);
  });

  it('reports tool triples separated from their outer triple by another invocation', async () => {
    const history = await returningHistory(1);
    const other = await returningHistory(2, 0);
    history.splice(history.length - 3, 0, ...other);
    expect(codes(history)).toEqual(['triple_not_adjacent_to_outer']);
  });
});
