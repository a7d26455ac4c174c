import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME, BEARER_SCHEME } from '../decorators/auth.decorators.js';
import { API_PREFIX, MIRROR_PREFIX } from '../http/route-index.js';
import { WEBHOOKS_OPENAPI } from '../../webhooks/webhook-openapi.js';

const DESCRIPTION = `Token-authenticated API over tracked root domains of bug-bounty programs, their hosts (subdomains),
scans, statistics and bulk feeds.

Send your key as \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`. Success bodies are \`{data, meta}\`;
errors are \`{error: {code, message}, request_id}\` and every response carries \`X-Request-Id\`.
Timestamps are ISO 8601 in UTC with microseconds. \`limit\` above its maximum is clamped (meta shows the limit
used); a malformed parameter answers 400 invalid_query naming it; parameters not listed are ignored.
A process that is shutting down answers any request still arriving on an open connection with 503
service_unavailable and \`Connection: close\`: retry it (another process, or this one once restarted, answers).
Cross-origin browser access is off unless the operator lists origins (CORS_ORIGINS).

Besides polling, GET /subdomains/stream pushes new hosts as Server-Sent Events, and webhooks (see
\`webhooks\`) receive them after each scan.`;

/** The API's OpenAPI 3.1 document, generated from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Subdomain Monitor API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .addServer(API_PREFIX, 'The API')
    .addServer(MIRROR_PREFIX, 'The same API under its mirror prefix')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API key: sm_live_ and 40 letters and digits' },
      BEARER_SCHEME,
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same API key in its own header' },
      API_KEY_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { ignoreGlobalPrefix: true });
  // A scope set on a controller and raised on a method lists each security scheme twice.
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, { security?: unknown[] }>)) {
      if (Array.isArray(operation.security)) {
        operation.security = operation.security.filter(
          (entry, i, all) => all.findIndex((other) => JSON.stringify(other) === JSON.stringify(entry)) === i,
        );
      }
    }
  }
  return toOpenApi31({ ...document, webhooks: WEBHOOKS_OPENAPI });
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
