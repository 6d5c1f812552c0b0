import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { ADMISSION_META_KEY, AdmittedClient, TOOL_CALL_ID_META_KEY, type AdmittedToolCall, type ToolMapping } from '../../../adapters/mcp';
import type { ToolActionRecord } from '../../../domain/invocation';
import type { PortalMcpConnection } from '../../../examples/mcp/connect';
import { createFidelityServer, FIDELITY_TOOLS, PAGE_SIZE, PROGRESS_EVERY_MS, PROGRESS_STEPS } from './support/fidelity-server';
import { FIRST_INVOCATION, openPortalWorld, PORTAL_MAPPING, type PortalWorld } from './support/portal-world';

/**
 * The wrapper against a real SDK server at the client's edges: calls the SDK client refuses before
 * sending are withheld, results it rejects after the tool ran are not failures, progress keeps a long
 * call alive, listings page through, and the SDK-shaped callTool carries the admission in _meta.
 */

const RELATION = PORTAL_MAPPING.probe_login!;
const MAPPING: ToolMapping = Object.fromEntries(['echo', 'task_only', 'bad_output', 'slow_progress', 'calls'].map((name) => [name, RELATION]));

const callsOf = async (client: Client, tool: string): Promise<number> => {
  const result = await client.callTool({ name: 'calls' });
  const first = (result.content as { type: string; text?: string }[])[0];
  const counts = JSON.parse(first?.text ?? '{}') as Record<string, number>;
  return counts[tool] ?? 0;
};

const inMemory = async (): Promise<PortalMcpConnection> => {
  const { server } = createFidelityServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'fidelity-spec', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, probeCalls: async () => 0, close: async () => { await client.close(); await server.close(); } };
};

const stdio = async (): Promise<PortalMcpConnection> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(__dirname, 'support', 'fidelity-server.ts')],
    cwd: join(__dirname, '..', '..', '..'),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'fidelity-spec', version: '1.0.0' });
  await client.connect(transport);
  return { client, probeCalls: async () => 0, close: () => client.close() };
};

const settlementOf = (record: ToolActionRecord | undefined) =>
  record === undefined || record.phase !== 'settled' ? undefined : record.settlement;

describe.each([
  ['InMemoryTransport', inMemory],
  ['stdio', stdio],
])('AdmittedToolClient at the SDK client edges, over %s', (_transport, connect) => {
  let world: PortalWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const runOnce = async (body: (client: AdmittedClient, raw: Client) => Promise<void>): Promise<PortalWorld> => {
    let failure: unknown;
    world = await openPortalWorld({
      connect: () => connect(),
      mapping: MAPPING,
      script: () => [],
      beforeScript: async (_tools, port) => {
        const raw = world!.connection.client;
        try {
          await body(new AdmittedClient(raw, port, MAPPING), raw);
        } catch (error) {
          failure = error;
        }
      },
    });
    await world.manager.advance(1);
    if (failure !== undefined) throw failure;
    return world;
  };

  it('pages through tools/list with the cursor, keeping only mapped tools', async () => {
    const names: string[] = [];
    let pages = 0;
    await runOnce(async (client) => {
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        pages += 1;
        expect(page.tools.length).toBeLessThanOrEqual(PAGE_SIZE);
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    });
    expect(pages).toBe(Math.ceil(FIDELITY_TOOLS.length / PAGE_SIZE));
    expect(names).toEqual(FIDELITY_TOOLS.map((tool) => tool.name));
  });

  it('withholds a tool that requires a task: admitted, cancelled, never dispatched, and the server never sees it', async () => {
    let result: Awaited<ReturnType<AdmittedClient['callTool']>> | undefined;
    let arrived = -1;
    const w = await runOnce(async (client, raw) => {
      await client.listTools();
      result = await client.callTool({ name: 'task_only', arguments: {}, _meta: { [TOOL_CALL_ID_META_KEY]: 'call-task' } });
      arrived = await callsOf(raw, 'task_only');
    });
    expect(arrived).toBe(0);
    expect(result?.isError).toBe(true);
    expect(result?._meta?.[ADMISSION_META_KEY]).toEqual({
      outcome: 'refused',
      tool_call_id: 'call-task',
      action_instance_id: `${FIRST_INVOCATION}:tool=1`,
      refusal: 'tool_requires_task',
    });
    const [record] = await w.toolActions(FIRST_INVOCATION);
    expect(record?.phase).toBe('settled');
    expect(settlementOf(record)?.kind).toBe('withheld');
  });

  it('withholds a call on a client that is not connected: the request could not leave', async () => {
    let call: AdmittedToolCall | undefined;
    const w = await runOnce(async (client, raw) => {
      await raw.close();
      call = await client.admitted.callTool({ name: 'echo', arguments: { text: 'never sent' } });
    });
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'client_not_connected', action_instance_id: `${FIRST_INVOCATION}:tool=1` });
    expect(settlementOf((await w.toolActions(FIRST_INVOCATION))[0])?.kind).toBe('withheld');
  });

  it('withholds a call whose arguments nest deeper than any tool takes: they could not be sent, and the server never sees it', async () => {
    let call: AdmittedToolCall | undefined;
    let arrived = -1;
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const w = await runOnce(async (client, raw) => {
      call = await client.admitted.callTool({ name: 'echo', arguments: { text: 'deep', nested: deep } });
      arrived = await callsOf(raw, 'echo');
    });
    expect(arrived).toBe(0);
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'arguments_too_deep', action_instance_id: `${FIRST_INVOCATION}:tool=1` });
    expect(settlementOf((await w.toolActions(FIRST_INVOCATION))[0])?.kind).toBe('withheld');
  });

  it('sends arguments nested as deep as a tool may take', async () => {
    let call: AdmittedToolCall | undefined;
    let nested: unknown = 'bottom';
    // The arguments object itself is the first level.
    for (let level = 1; level < 256; level += 1) nested = { level: nested };
    await runOnce(async (client) => {
      call = await client.admitted.callTool({ name: 'echo', arguments: { text: 'deep enough', nested } });
    });
    expect(call?.outcome).toBe('succeeded');
  });

  it('settles a call whose result broke the output schema partial_success: the tool ran, the model gets an error', async () => {
    let call: AdmittedToolCall | undefined;
    let arrived = -1;
    const w = await runOnce(async (client, raw) => {
      // The SDK client keeps the output schemas of the page it listed last: bad_output's page.
      await client.listTools({ cursor: String(PAGE_SIZE) });
      call = await client.admitted.callTool({ name: 'bad_output', arguments: {} });
      arrived = await callsOf(raw, 'bad_output');
    });
    expect(arrived).toBe(1);
    expect(call?.outcome).toBe('partial_success');
    expect(call?.result.isError).toBe(true);
    const settlement = settlementOf((await w.toolActions(FIRST_INVOCATION))[0]);
    expect(settlement?.kind).toBe('completed');
    if (settlement?.kind !== 'completed') return;
    expect(settlement.actionResult).toMatchObject({ status: 'partial_success', failure_class: 'partial_success', diagnostics: ['tool_output_rejected'] });
  });

  it('keeps a long call that reports progress alive past its timeout; without the reset it times out into unknown', async () => {
    const progress: Progress[] = [];
    let alive: AdmittedToolCall | undefined;
    let timedOut: AdmittedToolCall | undefined;
    const timeout = PROGRESS_EVERY_MS * 3;
    const w = await runOnce(async (client) => {
      alive = await client.admitted.callTool(
        { name: 'slow_progress', arguments: {} },
        { timeout, resetTimeoutOnProgress: true, maxTotalTimeout: PROGRESS_EVERY_MS * PROGRESS_STEPS * 10, onprogress: (p) => progress.push(p) },
      );
      timedOut = await client.admitted.callTool({ name: 'slow_progress', arguments: {} }, { timeout, onprogress: () => undefined });
    });
    expect(PROGRESS_EVERY_MS * PROGRESS_STEPS).toBeGreaterThan(timeout);
    expect(alive?.outcome).toBe('succeeded');
    // The last notification may cross the result on the wire; the ones before it were all handed on, in order.
    const steps = progress.map((p) => p.progress);
    expect(steps.length).toBeGreaterThanOrEqual(PROGRESS_STEPS - 1);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => i + 1));
    expect(timedOut).toMatchObject({ outcome: 'unknown', reason: 'timeout' });
    const records = await w.toolActions(FIRST_INVOCATION);
    expect(records.map((record) => settlementOf(record)?.kind)).toEqual(['completed', 'indeterminate']);
  });

  it('times out at maxTotalTimeout even while progress keeps coming', async () => {
    let call: AdmittedToolCall | undefined;
    await runOnce(async (client) => {
      call = await client.admitted.callTool(
        { name: 'slow_progress', arguments: {} },
        { timeout: PROGRESS_EVERY_MS * 3, resetTimeoutOnProgress: true, maxTotalTimeout: PROGRESS_EVERY_MS * 2.5, onprogress: () => undefined },
      );
    });
    expect(call).toMatchObject({ outcome: 'unknown', reason: 'timeout' });
  });

  it('answers in the SDK shape: a CallToolResult with the admission in _meta', async () => {
    let result: Awaited<ReturnType<AdmittedClient['callTool']>> | undefined;
    await runOnce(async (client) => {
      result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    });
    expect(result?.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(result?._meta?.[ADMISSION_META_KEY]).toMatchObject({ outcome: 'succeeded', action_instance_id: `${FIRST_INVOCATION}:tool=1` });
  });
});
