import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { MemoryEventStore } from '../../../adapters/event-store';
import { RemotePortServer } from '../../../adapters/http';
import {
  HarnessRuntime,
  RuntimeManager,
  toolActionRequestFor,
  type AttachedPort,
  type InvocationToolActionPort,
  type RemoteAccess,
} from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from '../../domain/application/support/world';

/**
 * Hostile bodies against an open invocation's remote port: random JSON, random bytes, and requests
 * that are almost right. The server never fails (no 500, no reset), answers only the statuses its
 * OpenAPI document names for the verb, and the history grows only when its answer says a request was
 * admitted or accepted.
 */

jest.setTimeout(120_000);

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const POST_VERBS = ['admit', 'admit-and-dispatch', 'dispatch', 'cancel', 'complete', 'report-unknown'] as const;
type Verb = (typeof POST_VERBS)[number] | 'values';

type OpenApi = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const openApi = JSON.parse(readFileSync(join(__dirname, '../../../docs/remote-port.openapi.json'), 'utf8')) as OpenApi;
const documentedStatuses = (verb: Verb): readonly number[] => {
  const path = openApi.paths[`/invocations/{invocation_action_instance_id}/${verb}`]!;
  const operation = path[verb === 'values' ? 'get' : 'post']!;
  return Object.keys(operation.responses).filter((status) => /^\d{3}$/.test(status)).map(Number);
};

describe('the remote port under hostile request bodies', () => {
  const server = new RemotePortServer();
  const store = new MemoryEventStore();
  let manager: RuntimeManager;
  let access!: RemoteAccess;
  let values!: InvocationToolActionPort;
  let opened: () => void;
  const invocationOpen = new Promise<void>((resolve) => (opened = resolve));
  let fuzzed: () => void;
  const fuzzDone = new Promise<void>((resolve) => (fuzzed = resolve));
  let advanced: Promise<void>;

  class RemoteHarnessRuntime extends HarnessRuntime {
    override attachInvocationToolActions(port: InvocationToolActionPort): void {
      const remote = (port as AttachedPort).remote;
      if (remote !== undefined) access = remote;
      values = port;
    }
  }

  beforeAll(async () => {
    await server.start();
    manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest(),
      runtime: new RemoteHarnessRuntime(async (request) => {
        opened();
        await fuzzDone;
        return probeResult(request, []);
      }),
      store,
      remotePorts: server,
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    advanced = manager.advance(1);
    await invocationOpen;
  });

  afterAll(async () => {
    fuzzed();
    await advanced;
    await manager.close();
    await server.close();
  });

  const historyLength = async (): Promise<number> => {
    const read = await store.readAll();
    if (read.kind !== 'read') throw new Error(read.reason);
    return read.events.length;
  };

  const anyJson = fc.oneof(fc.jsonValue(), fc.anything().map((value) => JSON.parse(JSON.stringify(value ?? null)) as unknown));
  const actionIds = fc.oneof(fc.string(), fc.constantFrom(`${INVOCATION}:tool=1`, `${INVOCATION}:tool=2`, `${INVOCATION}:tool=0`, INVOCATION), anyJson);
  const nearlyValidRequest = fc
    .record({
      tool_call_id: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
      drop: fc.subarray(['tool_affordance_address', 'action_contract_address', 'episode_id', 'target_addresses', 'evidence_refs']),
      extra: fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 3 }),
    })
    .map(({ tool_call_id, drop, extra }) => {
      const request: Record<string, unknown> = { ...toolActionRequestFor(values, 'call', PORTAL_CLIENT), ...extra, tool_call_id };
      for (const key of drop) delete request[key];
      return request;
    });
  const structuredBody = fc.record(
    { action_instance_id: actionIds, request: fc.oneof(nearlyValidRequest, anyJson), result: anyJson, reason: fc.oneof(fc.string(), anyJson) },
    { requiredKeys: [] },
  );
  const validAdmission = fc
    .string({ minLength: 1, maxLength: 12 })
    .map((toolCallId) => ({ request: toolActionRequestFor(values, toolCallId, PORTAL_CLIENT) }));
  const body = fc.oneof(
    validAdmission.map((value) => Buffer.from(JSON.stringify(value))),
    structuredBody.map((value) => Buffer.from(JSON.stringify(value))),
    anyJson.map((value) => Buffer.from(JSON.stringify(value))),
    fc.string().map((text) => Buffer.from(text)),
    fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)),
  );

  it('never answers 500 or an undocumented status, and changes the history only through an admitted or accepted request', async () => {
    const seen = new Map<number, number>();
    let changes = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Verb>(...POST_VERBS, 'values'), body, fc.boolean(), async (verb, payload, withType) => {
        const before = await historyLength();
        const headers: Record<string, string> = { authorization: `Bearer ${access.secret}` };
        if (withType) headers['content-type'] = 'application/json';
        const response = await fetch(`${access.url}/invocations/${encodeURIComponent(INVOCATION)}/${verb}`, {
          method: verb === 'values' ? 'GET' : 'POST',
          headers,
          ...(verb === 'values' ? {} : { body: payload }),
        });
        const answer = (await response.json()) as { admitted?: unknown; accepted?: unknown; error?: unknown };
        expect(response.status).not.toBe(500);
        expect(documentedStatuses(verb)).toContain(response.status);
        if (response.status !== 200) expect(typeof answer.error).toBe('string');
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        const after = await historyLength();
        if (after !== before) {
          changes += 1;
          expect(response.status).toBe(200);
          expect(answer.admitted === true || answer.accepted === true).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    // The runs reached the port both ways: refused as malformed, and admitted into the history.
    expect(seen.get(400) ?? 0).toBeGreaterThan(0);
    expect(seen.get(200) ?? 0).toBeGreaterThan(0);
    expect(changes).toBeGreaterThan(0);
    // The invocation is still open and its port still answers.
    const still = await fetch(`${access.url}/invocations/${encodeURIComponent(INVOCATION)}/values`, { headers: { authorization: `Bearer ${access.secret}` } });
    expect(still.status).toBe(200);
  });
});
