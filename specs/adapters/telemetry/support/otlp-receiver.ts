import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/HTTP receiver on 127.0.0.1 keeping every JSON request body it gets, by path. */

export interface ReceivedBody {
  readonly path: string;
  readonly text: string;
}

export interface OtlpReceiver {
  readonly endpoint: string;
  readonly bodies: ReceivedBody[];
  close(): Promise<void>;
}

export const startReceiver = async (): Promise<OtlpReceiver> => {
  const bodies: ReceivedBody[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', text: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: KeyValue[];
  events?: { name: string; timeUnixNano: string | number; attributes?: KeyValue[] }[];
};

export const attributesOf = (keyValues: readonly KeyValue[] | undefined): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const { key, value } of keyValues ?? []) out[key] = value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue;
  return out;
};

export const spansOf = (bodies: readonly ReceivedBody[]): OtlpSpan[] =>
  bodies
    .filter((body) => body.path === '/v1/traces')
    .flatMap((body) => (JSON.parse(body.text) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans)
    .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));

export type OtlpMetric = { name: string; sum?: { dataPoints: { asInt?: string | number; asDouble?: number; attributes: KeyValue[] }[] }; histogram?: { dataPoints: { count: string | number; attributes: KeyValue[] }[] } };

export const metricsOf = (bodies: readonly ReceivedBody[]): OtlpMetric[] =>
  bodies
    .filter((body) => body.path === '/v1/metrics')
    .flatMap((body) => (JSON.parse(body.text) as { resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[] }).resourceMetrics)
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));

export const serviceNamesOf = (bodies: readonly ReceivedBody[]): string[] =>
  bodies
    .filter((body) => body.path === '/v1/traces')
    .flatMap((body) => (JSON.parse(body.text) as { resourceSpans: { resource: { attributes: KeyValue[] } }[] }).resourceSpans)
    .map((resource) => String(attributesOf(resource.resource.attributes)['service.name']));

/** The resource attributes of every request, traces and metrics alike. */
export const resourcesOf = (bodies: readonly ReceivedBody[]): Record<string, unknown>[] =>
  bodies.flatMap((body) => {
    const parsed = JSON.parse(body.text) as { resourceSpans?: { resource: { attributes: KeyValue[] } }[]; resourceMetrics?: { resource: { attributes: KeyValue[] } }[] };
    return [...(parsed.resourceSpans ?? []), ...(parsed.resourceMetrics ?? [])].map((resource) => attributesOf(resource.resource.attributes));
  });
