import { MemoryEventStore, type AppendResult } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type InvocationToolActionPort, type OpenInvocationsIndex } from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * An invocation whose InvocationClosed the store cannot write (disk full, server gone): its port is
 * closed as soon as admitAction returns, whatever the store does, and its attempt stays in flight so
 * that recovery closes it, settles its dispatched action indeterminate and stops the participant's
 * scheduler on that action (SPEC.md sections 5 and 6).
 */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const TOOL_1 = `${INVOCATION}:tool=1`;

/** A store that cannot write an invocation's closure while `failingClose` is set. */
class UnwritableClose extends MemoryEventStore {
  failingClose = true;
  /** How many more closes fail after `failingClose` is cleared. */
  failuresLeft = 0;
  override async append(...args: Parameters<MemoryEventStore['append']>): Promise<AppendResult> {
    const [, events] = args;
    if (events.some((event) => event.type === 'InvocationClosed') && (this.failingClose || this.failuresLeft > 0)) {
      this.failuresLeft--;
      return { kind: 'storage_failure', reason: 'the disk is full' };
    }
    return super.append(...args);
  }
}

const requestFor = (port: InvocationToolActionPort, toolCallId: string) => toolActionRequestFor(port, toolCallId, PORTAL_CLIENT);

/** Admits and dispatches one tool call, then returns without its outcome; hands the port out. */
const dispatchAndReturn = (keep: (port: InvocationToolActionPort) => void) =>
  new HarnessRuntime(async (request, _snapshot, port) => {
    keep(port!);
    const admitted = await port!.admit(requestFor(port!, 'call-1'));
    if (!admitted.admitted) throw new Error(`not admitted: ${admitted.refusal}`);
    await port!.dispatch(admitted.action_instance_id);
    return probeResult(request, []);
  });

const managerOn = (store: MemoryEventStore, runtime: HarnessRuntime, openInvocations?: OpenInvocationsIndex) =>
  new RuntimeManager({
    compiled: compiledScenario({ failurePolicy: 'continue' }),
    manifest: manifest(),
    runtime,
    store,
    episodeId: 'episode-1',
    clock: steppingClock(),
    ...(openInvocations === undefined ? {} : { openInvocations }),
  });

describe('an invocation whose closure the store could not write', () => {
  it('refuses every port call after admitAction returned with invocation_closed', async () => {
    const store = new UnwritableClose();
    let port: InvocationToolActionPort | undefined;
    const manager = managerOn(store, dispatchAndReturn((p) => (port = p)));
    await manager.start();
    await manager.advance(1);
    store.failingClose = false;
    expect(await port!.admit(requestFor(port!, 'after-return'))).toMatchObject({ admitted: false, refusal: 'invocation_closed' });
  });

  it('never answers a replayed admitAndDispatch as admitted once admitAction returned', async () => {
    const store = new UnwritableClose();
    let port: InvocationToolActionPort | undefined;
    const manager = managerOn(store, dispatchAndReturn((p) => (port = p)));
    await manager.start();
    await manager.advance(1);
    // The stored state is still active (no InvocationClosed), and call-1 is known: still closed to the harness.
    expect(await port!.admitAndDispatch(requestFor(port!, 'call-1'))).toEqual({
      admitted: false,
      refusal: 'invocation_closed',
      message: expect.any(String),
    });
    expect(await port!.admitAndDispatch(requestFor(port!, 'after-return'))).toMatchObject({ admitted: false, refusal: 'invocation_closed' });
  });

  it('stops the participant scheduler on its dispatched action once recovery settles it indeterminate', async () => {
    const store = new UnwritableClose();
    const first = managerOn(store, dispatchAndReturn(() => undefined));
    await first.start();
    await first.advance(1);
    store.failingClose = false;
    // The restart finds the invocation open (as the open-invocations view would list it) and recovers it.
    const restarted = managerOn(store, dispatchAndReturn(() => undefined), {
      catchUp: async () => undefined,
      listOpen: () => [{ invocation_action_instance_id: INVOCATION, episode_id: 'episode-1' }],
    });
    await restarted.start();
    expect(await restarted.getOperation(TOOL_1)).toMatchObject({ settlement: 'indeterminate' });
    const scheduler = restarted.schedulerStatus(POLICY, PARTICIPANT);
    expect(scheduler?.status).toBe('stopped');
    expect([...(scheduler?.unresolved ?? [])]).toEqual([TOOL_1]);
  });

  it('leaves the attempt in flight while the closure cannot be written', async () => {
    const store = new UnwritableClose();
    const manager = managerOn(store, dispatchAndReturn(() => undefined));
    await manager.start();
    await manager.advance(1);
    const scheduler = manager.schedulerStatus(POLICY, PARTICIPANT);
    expect([...(scheduler?.inFlight.values() ?? [])]).toEqual([INVOCATION]);
    expect(scheduler?.unresolved.size).toBe(0);
  });

  it('retries the closure: a store that fails once still closes the invocation and counts its attempt', async () => {
    const store = new UnwritableClose();
    store.failingClose = false;
    store.failuresLeft = 1;
    const manager = managerOn(store, dispatchAndReturn(() => undefined));
    await manager.start();
    await manager.advance(1);
    const scheduler = manager.schedulerStatus(POLICY, PARTICIPANT);
    expect(scheduler?.inFlight.size).toBe(0);
    expect(scheduler?.status).toBe('stopped');
    expect([...(scheduler?.unresolved ?? [])]).toEqual([TOOL_1]);
    expect(await manager.getOperation(TOOL_1)).toMatchObject({ settlement: 'indeterminate' });
  });
});
