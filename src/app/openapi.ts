import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ResponseObject,
  type HeaderObject,
  type ParameterObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { API_KEY_SCHEME, BEARER_SCHEME } from '../auth/auth.decorators.js';
import { API_PREFIX, MIRROR_PREFIX } from '../common/http/route-index.js';
import { addStandardResponses } from '../common/openapi/standard-responses.js';
import { HOST_NAME_SCHEMA, ROOT_DOMAIN_SCHEMA } from '../common/validation/name-patterns.js';
import { WEBHOOKS_OPENAPI } from '../notify/webhook-openapi.js';

const DESCRIPTION = `Token-authenticated API over tracked root domains of bug-bounty programs, their hosts (subdomains),
scans, statistics and bulk feeds.

Send your key as \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`. Success bodies are \`{data, meta}\`;
errors are \`{error: {code, message}, request_id}\` and every response carries \`X-Request-Id\`.
Timestamps are ISO 8601 in UTC with microseconds. \`limit\` above its maximum is clamped (meta shows the limit
used); a malformed parameter answers 400 invalid_query naming it; parameters not listed are ignored.
A process that is shutting down answers any request still arriving on an open connection with 503
service_unavailable and \`Connection: close\`: retry it (another process, or this one once restarted, answers).
Cross-origin browser access is off unless the operator lists origins (CORS_ORIGINS).
Send \`Accept-Encoding: br\` or \`gzip\` to get JSON bodies over 1 KiB, txt pages and exports compressed (streamed,
with \`Vary: Accept-Encoding\`); without it, bodies are sent as they are. The event stream is never compressed.

Besides polling, GET /subdomains/stream pushes new hosts as Server-Sent Events, and webhooks (see
\`webhooks\`) receive them after each scan.`;

/** Every tag an operation uses, declared once with what it groups (tools list them in this order). */
const TAGS: [name: string, description: string][] = [
  ['Getting started', 'The index of endpoints, this document, and the identity of the presented key'],
  ['Domains', 'Tracked root domains, their stats and their hosts'],
  ['Subdomains', 'Hosts across every program: the new-host feed, search and the live stream'],
  ['Platforms', "Bug-bounty platforms, their programs' root domains and bulk feeds of their hosts"],
  ['Scans', "Scan history, the worker's state, and queueing scans (write scope)"],
  ['Stats', 'Totals, top domains and time series of new hosts'],
  ['Export', 'Hosts streamed as one txt, csv or json file'],
  ['Certificate Transparency', 'The Certificate Transparency logs the worker follows, and where each stands'],
  ['Events', 'Every change to the hosts (arrivals, hosts gone and back, DNS changes) as one feed on a cursor'],
  ['Webhooks', "The key's user's webhooks: add, test, inspect their deliveries and send one again (write scope)"],
];

/** The one header every response carries, declared once and referenced from each response. */
const REQUEST_ID_HEADER = {
  description:
    "The request's id: the caller's own X-Request-Id when it was well-formed (1-128 of A-Z a-z 0-9 . _ : -), " +
    'else a UUID. Equal to request_id in an error body.',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};

/**
 * The API's OpenAPI 3.1 document, generated from the controllers' decorators. Paths are written without the
 * prefix, so each server is a prefix: under PUBLIC_URL when it is set, else relative to where the document was
 * fetched (it is served under the same prefixes).
 */
export function buildOpenApiDocument(app: INestApplication, publicUrl?: string): OpenAPIObject {
  const base = publicUrl?.replace(/\/+$/, '') ?? '';
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Subdomain Monitor API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .addServer(base + API_PREFIX, 'The API')
    .addServer(base + MIRROR_PREFIX, 'The same API under its mirror prefix')
    .addBearerAuth(
      // Keys are opaque strings, not JWTs: no bearerFormat (DocumentBuilder would otherwise default it to JWT).
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: undefined,
        description: 'An API key: sm_live_ and 40 letters and digits',
      },
      BEARER_SCHEME,
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same API key in its own header' },
      API_KEY_SCHEME,
    );
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), { ignoreGlobalPrefix: true });
  // OpenAPI 3.1 names a license by its SPDX identifier; DocumentBuilder only knows a name and a URL.
  document.info.license = { name: 'MIT', identifier: 'MIT' } as OpenAPIObject['info']['license'];
  document.components = {
    ...document.components,
    headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...CONDITIONAL_HEADERS },
    parameters: { ...document.components?.parameters, 'If-None-Match': IF_NONE_MATCH },
  };
  addStandardResponses(document);
  for (const [path, item] of Object.entries(document.paths)) {
    const get = (item as Record<string, OperationObject>).get;
    if (get && !STREAMED.includes(path)) conditional(get);
    for (const operation of Object.values(item as Record<string, OperationObject>)) {
      describePathNames(operation);
      // A scope set on a controller and raised on a method lists each security scheme twice. A public route
      // says so (an empty list) rather than leaving readers to guess.
      operation.security = (operation.security ?? []).filter(
        (entry, i, all) => all.findIndex((other) => JSON.stringify(other) === JSON.stringify(entry)) === i,
      );
      // Every response carries X-Request-Id (set for each request before any route runs).
      for (const response of Object.values(operation.responses) as ResponseObject[]) {
        response.headers = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...response.headers };
      }
    }
  }
  return toOpenApi31({ ...document, webhooks: WEBHOOKS_OPENAPI });
}

/**
 * The names a path can carry, with the syntax their pipes check (RootDomainPipe, HostNamePipe): a pipe cannot
 * document itself, and every `{domain}` of this API is a root domain, every `{host}` a host name. Query and body
 * names document themselves (IsRootDomain).
 */
const PATH_NAMES: Record<string, object> = { domain: ROOT_DOMAIN_SCHEMA, host: HOST_NAME_SCHEMA };

function describePathNames(operation: OperationObject): void {
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    const syntax = parameter.in === 'path' ? PATH_NAMES[parameter.name] : undefined;
    if (syntax) parameter.schema = { ...parameter.schema, ...syntax };
  }
}

/** GETs whose body is streamed, and so has no ETag. */
const STREAMED = ['/export', '/subdomains/stream'];

const CONDITIONAL_HEADERS: Record<string, HeaderObject> = {
  ETag: {
    description:
      'A digest of the body (weak: the same body is also sent compressed). Send it back as If-None-Match: the ' +
      'answer is 304 with no body while it is unchanged.',
    schema: { type: 'string', example: 'W/"3q2-7w5NlLpZ4hTSUuIqMEBtRYA"' },
  },
  'Cache-Control': {
    description: 'private, no-cache: a client may keep the answer, and asks again (with If-None-Match) before each use',
    schema: { type: 'string', example: 'private, no-cache' },
  },
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of an answer you hold (or a list of them, or *). While nothing it shows has changed the answer is ' +
    '304 Not Modified with no body, usually without any query; a window in hours is exact to the minute.',
  schema: { type: 'string' },
};

const NOT_MODIFIED: ResponseObject = {
  description: 'Not Modified: the answer whose ETag If-None-Match names is still the answer. No body.',
  headers: {
    ETag: { $ref: '#/components/headers/ETag' },
    'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
  },
};

/** Documents a GET's conditional answers: ETag and Cache-Control on its 200, If-None-Match, and its 304. */
function conditional(operation: OperationObject): void {
  operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/If-None-Match' }];
  const ok = operation.responses['200'] as ResponseObject | undefined;
  if (ok) {
    ok.headers = {
      ...ok.headers,
      ETag: { $ref: '#/components/headers/ETag' },
      'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
    };
  }
  operation.responses['304'] = { ...NOT_MODIFIED, headers: { ...NOT_MODIFIED.headers } };
}

type Json = { [key: string]: unknown };

/**
 * @nestjs/swagger writes OpenAPI 3.0 nullability (`nullable: true`); OpenAPI 3.1 schemas are JSON Schema
 * 2020-12, where a null is a type of its own.
 */
export function toOpenApi31<T>(node: T): T {
  if (Array.isArray(node)) return node.map((n) => toOpenApi31(n as unknown)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) out[key] = toOpenApi31(value);
  if (out.nullable !== true) {
    delete out.nullable;
    return out as T;
  }
  delete out.nullable;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    return out as T;
  }
  return { oneOf: [out, { type: 'null' }] } as T;
}
