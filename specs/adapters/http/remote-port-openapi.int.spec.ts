import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { MemoryEventStore } from '../../../adapters/event-store';
import {
  HarnessRuntime,
  RuntimeManager,
  toolActionRequestFor,
  type AttachedPort,
  type RemoteAccess,
} from '../../../domain/application';
import type { InvocationPortValues } from '../../../domain/invocation';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, participantOf, POLICY, steppingClock } from '../../domain/application/support/world';
import { RemotePortServer } from '../../../adapters/http';

/**
 * docs/remote-port.openapi.json against the real remote port server: every route, method and status
 * code the document lists is exercised, and every answer's body is checked against the document's
 * schema for that route and status.
 */

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: { 'application/json'?: { schema: unknown } } }> }>> };
const DOC_PATH = join(__dirname, '..', '..', '..', 'docs', 'remote-port.openapi.json');
const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8')) as Doc & { components: unknown };

/** The document's schemas, with its local refs pointed at the document registered under "openapi". */
const repoint = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(repoint);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith('#') ? `openapi${inner}` : repoint(inner);
  return out;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: repoint(doc.components) });

const documented = (): string[] => {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      for (const status of Object.keys(operation.responses ?? {})) if (status !== 'default') routes.push(`${method.toUpperCase()} ${path} ${status}`);
    }
  }
  return routes.sort();
};

/** The schema of an answer; a method the document does not list for the path must answer 405 with an Error. */
const schemaFor = (path: string, method: string, status: number): unknown => {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (operation === undefined) {
    if (status !== 405) throw new Error(`${method} ${path} is not in the document and answered ${status}, not 405`);
    return { $ref: 'openapi#/components/schemas/Error' };
  }
  const responses = operation.responses ?? {};
  const response = responses[String(status)] ?? responses.default;
  if (response === undefined) throw new Error(`the document has no ${status} (nor default) for ${method} ${path}`);
  return repoint(response.content?.['application/json']?.schema);
};

const FIRST = `${POLICY}:${PARTICIPANT}:1`;
const SECOND = `${POLICY}:${participantOf('agent-1')}:1`;
const BIG = JSON.stringify({ request: 'x'.repeat((1 << 20) + 10) });

interface Exercised {
  readonly route: string;
  readonly body: unknown;
  readonly problems: string | null;
}

describe('the remote port against its OpenAPI document', () => {
  const server = new RemotePortServer();
  const accesses = new Map<string, RemoteAccess>();
  const exercised: Exercised[] = [];
  let values: InvocationPortValues | undefined;
  /** Each verb's answer to a body without the members it needs, and `values` asked with the scheme written in lower case. */
  const emptyBodies = new Map<string, { status: number; body: unknown }>();
  let lowerCaseScheme: { status: number; body: unknown } | undefined;

  const call = async (access: RemoteAccess, verb: string, init: { method: string; body?: string; authorization?: string | null; invocation?: string; rawInvocation?: string }): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const authorization = init.authorization === undefined ? `Bearer ${access.secret}` : init.authorization;
    if (authorization !== null) headers.authorization = authorization;
    const invocation = init.invocation ?? access.invocation_action_instance_id;
    const segment = init.rawInvocation ?? encodeURIComponent(invocation);
    const response = await fetch(`${access.url}/invocations/${segment}/${verb}`, {
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const body = (await response.json()) as unknown;
    const path = `/invocations/{invocation_action_instance_id}/${verb}`;
    const validate = ajv.compile(schemaFor(path, init.method, response.status) as object);
    exercised.push({
      route: doc.paths[path]?.[init.method.toLowerCase()] === undefined ? `${init.method} ${path} (not in the document)` : `${init.method} ${path} ${response.status}`,
      body,
      problems: validate(body) ? null : ajv.errorsText(validate.errors),
    });
    return { status: response.status, body };
  };

  const POST_VERBS = ['admit', 'admit-and-dispatch', 'dispatch', 'complete', 'report-unknown', 'cancel'] as const;

  /** Every documented answer an open invocation can give, in one run against `mine`, with `other` open too. */
  const exerciseOpen = async (mine: RemoteAccess, other: RemoteAccess): Promise<void> => {
    values = (await call(mine, 'values', { method: 'GET' })).body as InvocationPortValues;
    const request = (id: string) => JSON.stringify({ request: toolActionRequestFor(values!, id, PORTAL_CLIENT) });
    const admitted = (await call(mine, 'admit', { method: 'POST', body: request('call-a') })).body.action_instance_id as string;
    await call(mine, 'admit', { method: 'POST', body: JSON.stringify({ request: { tool_call_id: 'bad' } }) }); // a domain refusal: request_invalid
    await call(mine, 'dispatch', { method: 'POST', body: JSON.stringify({ action_instance_id: admitted }) });
    const both = (await call(mine, 'admit-and-dispatch', { method: 'POST', body: request('call-b') })).body.action_instance_id as string;
    await call(mine, 'admit-and-dispatch', { method: 'POST', body: request('call-b') }); // replay: state_conflict
    const outcome = probeResult({ ...values!, action_instance_id: both, action_contract_address: PORTAL_CLIENT.action_contract_address } as never, []);
    await call(mine, 'complete', { method: 'POST', body: JSON.stringify({ action_instance_id: both, result: { ...outcome, status: 'succeeded' } }) });
    const withheld = (await call(mine, 'admit', { method: 'POST', body: request('call-c') })).body.action_instance_id as string;
    await call(mine, 'cancel', { method: 'POST', body: JSON.stringify({ action_instance_id: withheld }) });
    await call(mine, 'cancel', { method: 'POST', body: JSON.stringify({ action_instance_id: admitted }) }); // after dispatch: state_conflict
    await call(mine, 'report-unknown', { method: 'POST', body: JSON.stringify({ action_instance_id: admitted, reason: 'timeout' }) });

    await call(mine, 'values', { method: 'GET', authorization: null });
    await call(mine, 'values', { method: 'GET', authorization: 'Bearer wrong' });
    lowerCaseScheme = await call(mine, 'values', { method: 'GET', authorization: `bearer ${mine.secret}` });
    await call(mine, 'values', { method: 'GET', authorization: `Bearer ${other.secret}` });
    await call(mine, 'values', { method: 'POST', body: '{}' });
    await call(mine, 'values', { method: 'GET', rawInvocation: '%E0%A4%A' }); // malformed percent-encoding: 400
    for (const verb of POST_VERBS) {
      await call(mine, verb, { method: 'POST', body: '{}', authorization: null });
      await call(mine, verb, { method: 'POST', body: '{}', authorization: `Bearer ${other.secret}` });
      await call(mine, verb, { method: 'GET' });
      emptyBodies.set(verb, await call(mine, verb, { method: 'POST', body: '{}' }));
      await call(mine, verb, { method: 'POST', body: 'not json' });
      await call(mine, verb, { method: 'POST', body: BIG });
    }
  };

  beforeAll(async () => {
    await server.start();
    let bothAttached: () => void = () => undefined;
    const attached = new Promise<void>((resolve) => (bothAttached = resolve));
    let firstDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (firstDone = resolve));
    class Runtime extends HarnessRuntime {
      override attachInvocationToolActions(port: AttachedPort): void {
        if (port.remote !== undefined) accesses.set(port.invocation_action_instance_id, port.remote);
      }
    }
    const manager = new RuntimeManager({
      compiled: compiledScenario({ extraAgents: 1 }),
      manifest: manifest(),
      runtime: new Runtime(async (request) => {
        if (accesses.size === 2) bothAttached();
        await attached;
        if (request.action_instance_id === FIRST) {
          try {
            await exerciseOpen(accesses.get(FIRST)!, accesses.get(SECOND)!);
          } finally {
            firstDone();
          }
        } else {
          await done;
        }
        return probeResult(request, []);
      }),
      store: new MemoryEventStore(),
      remotePorts: server,
      episodeId: 'episode-openapi',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    await manager.close();
    // The first invocation has returned: its secret answers as a closed invocation's.
    const mine = accesses.get(FIRST)!;
    await call(mine, 'values', { method: 'GET' });
    for (const verb of POST_VERBS) await call(mine, verb, { method: 'POST', body: '{}' });
  });

  afterAll(() => server.close());

  it('answers a body without the member a verb needs 400 body_invalid, naming it, for every verb', () => {
    const needs: Record<(typeof POST_VERBS)[number], string> = {
      admit: 'request',
      'admit-and-dispatch': 'request',
      dispatch: 'action_instance_id',
      complete: 'action_instance_id',
      'report-unknown': 'action_instance_id',
      cancel: 'action_instance_id',
    };
    for (const verb of POST_VERBS) {
      const answer = emptyBodies.get(verb);
      expect([verb, answer?.status, (answer?.body as { error?: string }).error]).toEqual([verb, 400, 'body_invalid']);
      expect((answer?.body as { message: string }).message).toContain(needs[verb]);
    }
  });

  it('reads the bearer scheme in any case, as HTTP says', () => {
    expect(lowerCaseScheme?.status).toBe(200);
  });

  it('exercises every route and status code the document lists, and no other', () => {
    const seen = [...new Set(exercised.map((entry) => entry.route))].filter((route) => !route.endsWith('(not in the document)')).sort();
    expect(seen).toEqual(documented());
    // Each verb was also tried with the method the document does not list for it (405, checked in call).
    expect(exercised.filter((entry) => entry.route.endsWith('(not in the document)'))).toHaveLength(7);
  });

  it('answers every exercised call with a body of the documented shape', () => {
    expect(exercised.length).toBeGreaterThan(40);
    expect(exercised.filter((entry) => entry.problems !== null)).toEqual([]);
  });

  it('answers domain refusals as 200 values, as the document says', () => {
    const refusals = exercised.filter((entry) => entry.route.endsWith(' 200') && typeof (entry.body as { refusal?: unknown }).refusal === 'string');
    expect(new Set(refusals.map((entry) => (entry.body as { refusal: string }).refusal))).toEqual(new Set(['request_invalid', 'state_conflict', 'invocation_closed']));
  });
});
