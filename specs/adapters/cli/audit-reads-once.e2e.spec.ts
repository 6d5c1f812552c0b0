import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { EventStore, ReadAllOptions, ReadResult, ReadStreamBackwardsOptions, ReadStreamOptions } from '../../../domain/ports/event-store';
import { invocationStream } from '../../../domain/streams';
import { walkAudit, type AuditedInvocation } from '../../../adapters/cli/audit-report';
import { openWorkspace, type Workspace } from '../../../adapters/cli/workspace';
import { INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, cli, scratchDir } from './support/cli';

/**
 * The audit reads the log once: every event reaches it once through readAll (the chain's check, the
 * views it reads and the invocations' histories share the pass), whether the views file is current or
 * missing; a stream is read again only for an invocation an operator resolved after it closed.
 */

jest.setTimeout(180_000);

const dataDir = scratchDir('audit-reads-once');
const store = ['--data-dir', dataDir];
const EPISODE = 'episode-reads-once';

/** The store as the audit sees it, counting what each read hands over. */
class CountingStore implements EventStore {
  readonly positions = new Map<bigint, number>();
  readonly streamsRead: string[] = [];

  constructor(private readonly inner: EventStore) {}

  append: EventStore['append'] = (stream, events, options) => this.inner.append(stream, events, options);
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close = (): Promise<void> => this.inner.close();

  async readAll(options?: ReadAllOptions): Promise<ReadResult> {
    const read = await this.inner.readAll(options);
    if (read.kind === 'read') for (const event of read.events) this.positions.set(event.position, (this.positions.get(event.position) ?? 0) + 1);
    return read;
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    this.streamsRead.push(stream);
    return this.inner.readStream(stream, options);
  }

  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    this.streamsRead.push(stream);
    return this.inner.readStreamBackwards(stream, options);
  }

  readStreams: EventStore['readStreams'] = (streams, options) => {
    this.streamsRead.push(...streams);
    return this.inner.readStreams(streams, options);
  };
}

const storedEvents = (): number => {
  const db = new BetterSqlite3(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

const countedAudit = async (): Promise<{ counting: CountingStore; invocations: AuditedInvocation[]; sound: boolean }> => {
  const opened = await openWorkspace({ dataDir }, { durable: true, readOnly: true });
  if (!opened.ok) throw new Error(opened.message);
  const counting = new CountingStore(opened.workspace.store);
  const workspace: Workspace = { ...opened.workspace, store: Object.assign(counting, { readLast: () => opened.workspace.store.readLast() }) };
  try {
    const invocations: AuditedInvocation[] = [];
    const walked = await walkAudit(workspace, { episode: EPISODE }, (invocation) => invocations.push(invocation));
    if (!walked.ok) throw new Error(walked.message);
    return { counting, invocations, sound: walked.value.sound };
  } finally {
    await opened.workspace.close();
  }
};

describe('raes-tools audit reads each event once', () => {
  beforeAll(() => {
    // Two invocations: the first's timed-out call is resolved by an operator after it closed.
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', EPISODE, ...store).status).toBe(0);
    expect(cli('resolve', `${INVOCATION(1)}:tool=2`, '--effect', 'absent', '--evidence', 'portal-access-log#7', ...store).status).toBe(0);
    expect(cli('scheduler', 'restart', PARTICIPANT, ...store).status).toBe(0);
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, ...store).status).toBe(0);
  });

  const expectOnePass = (counting: CountingStore): void => {
    const total = storedEvents();
    expect(total).toBeGreaterThan(20);
    expect(counting.positions.size).toBe(total);
    expect([...counting.positions.values()].filter((reads) => reads !== 1)).toEqual([]);
    // Only the invocation resolved after its closing is read again, for its resolution.
    expect(counting.streamsRead).toEqual([invocationStream(EPISODE, INVOCATION(1))]);
  };

  it('with the views file as run left it', async () => {
    const { counting, invocations, sound } = await countedAudit();
    expectOnePass(counting);
    expect(sound).toBe(true);
    expect(invocations.map((invocation) => invocation.invocation_action_instance_id)).toEqual([INVOCATION(1), INVOCATION(2)]);
    expect(invocations[0]!.tool_actions[1]!.resolution).toEqual(expect.objectContaining({ effect: 'absent', evidence_ref: 'portal-access-log#7' }));
  });

  it('with the views file lost, caught up in the same pass', async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `views.sqlite${suffix}`), { force: true });
    const { counting, invocations, sound } = await countedAudit();
    expectOnePass(counting);
    expect(sound).toBe(true);
    expect(invocations).toHaveLength(2);
    expect(invocations[0]!.tool_actions[1]!.resolution).toEqual(expect.objectContaining({ effect: 'absent' }));
  });
});
