// An OTLP receiver for tests: OTLP/HTTP (JSON bodies parsed, protobuf bodies kept as bytes) on one
// port and, with `grpc`, an HTTP/2 server that answers the gRPC export calls with an empty success.
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface OtlpRequest {
  path: string;
  contentType: string;
  /** Parsed for JSON bodies. */
  json?: Record<string, unknown>;
  bytes: number;
}

export interface OtlpReceiver {
  url: string;
  requests: OtlpRequest[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(options: { grpc?: boolean } = {}): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  if (options.grpc) {
    const server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        requests.push({ path: String(headers[':path']), contentType: String(headers['content-type']), bytes: Buffer.concat(chunks).length });
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        // An empty protobuf message in one gRPC frame: not compressed, length 0.
        stream.end(Buffer.from([0, 0, 0, 0, 0]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requests,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      requests.push({
        path: request.url ?? '',
        contentType,
        bytes: body.length,
        ...(contentType.includes('json') ? { json: JSON.parse(body.toString('utf8')) as Record<string, unknown> } : {}),
      });
      response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
      response.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type OtlpAttribute = { key: string; value: Record<string, unknown> };

/** Attributes as a plain object (string, int, double, bool and array values). */
function attributeMap(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] =
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? value.arrayValue;
  }
  return out;
}

export interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

export function spansOf(requests: OtlpRequest[]): ExportedSpan[] {
  type Body = { resourceSpans?: { scopeSpans?: { spans?: (Omit<ExportedSpan, 'attributes'> & { attributes?: OtlpAttribute[] })[] }[] }[] };
  return requests
    .filter((request) => request.path === '/v1/traces' && request.json)
    .flatMap((request) => (request.json as Body).resourceSpans ?? [])
    .flatMap((resource) => resource.scopeSpans ?? [])
    .flatMap((scope) => scope.spans ?? [])
    .map((span) => ({ ...span, attributes: attributeMap(span.attributes) }));
}

export function logEventsOf(requests: OtlpRequest[]): Record<string, unknown>[] {
  type Body = { resourceLogs?: { scopeLogs?: { logRecords?: { attributes?: OtlpAttribute[] }[] }[] }[] };
  return requests
    .filter((request) => request.path === '/v1/logs' && request.json)
    .flatMap((request) => (request.json as Body).resourceLogs ?? [])
    .flatMap((resource) => resource.scopeLogs ?? [])
    .flatMap((scope) => scope.logRecords ?? [])
    .map((record) => attributeMap(record.attributes));
}

export function metricNamesOf(requests: OtlpRequest[]): string[] {
  type Body = { resourceMetrics?: { scopeMetrics?: { metrics?: { name: string }[] }[] }[] };
  return requests
    .filter((request) => request.path === '/v1/metrics' && request.json)
    .flatMap((request) => (request.json as Body).resourceMetrics ?? [])
    .flatMap((resource) => resource.scopeMetrics ?? [])
    .flatMap((scope) => scope.metrics ?? [])
    .map((metric) => metric.name);
}
