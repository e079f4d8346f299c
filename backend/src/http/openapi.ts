/**
 * The API's own description: every route's declaration (http/route.ts) points at the very zod
 * schemas its input is parsed with (contracts/), and this module turns the declarations the app
 * mounted into one OpenAPI 3.1 document with zod-openapi. A `RouteDoc` is the documented half of a
 * declaration: every router is declared with http/route.ts, so nothing is documented by hand.
 */
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { errorBody, pathId } from '../../../contracts/common.js';
import { ACCESS_KINDS, type Access } from './access.js';

export type { Access } from './access.js';

/** The version of the API this document describes (the app's version). */
export const API_VERSION = '0.1.0';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseDoc {
  description: string;
  /** The JSON body; absent for 204 and redirects. */
  schema?: z.ZodType;
  /** Other than application/json (a script, a binary, text). */
  contentType?: string;
  /** The same answer in other formats the route offers (`?format=`): media type → what it holds. */
  alternatives?: Record<string, string>;
}

export interface RouteDoc {
  method: Method;
  /** As the router mounts it: `/api/systems/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Where the body is not JSON (the agent's gzip report is still JSON; forms are not). */
  bodyContentType?: string;
  /** The successful answers; the refusals every route shares are added here. */
  responses: Record<number, ResponseDoc>;
}

const SESSION_OR_TOKEN_READ: Record<string, string[]>[] = [{ sessionCookie: [] }, { apiToken: [] }];
const SESSION_OR_TOKEN_WRITE: Record<string, string[]>[] = [{ sessionCookie: [], csrfHeader: [] }, { apiToken: [] }];

function securityOf(access: Access, method: Method): Record<string, string[]>[] {
  const write = method !== 'get';
  switch (access) {
    case 'public':
      return [];
    case 'browser-session':
      return write ? [{ sessionCookie: [], csrfHeader: [] }] : [{ sessionCookie: [] }];
    case 'agent':
      return [{ agentJwt: [] }];
    case 'enrollment':
      return [{ enrollmentKey: [] }];
    case 'cron':
      return [{ cronSecret: [] }];
    case 'metrics':
      return [{ apiToken: [] }, { metricsToken: [] }];
    default:
      return write ? SESSION_OR_TOKEN_WRITE : SESSION_OR_TOKEN_READ;
  }
}

/** `/api/systems/:id` → `/api/systems/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] as string);
  if (names.length === 0) return undefined;
  const idLike = (name: string) => name === 'id' || name.endsWith('Id');
  return z.object(Object.fromEntries(names.map((name) => [name, idLike(name) ? pathId : z.string()])));
}

/** A refusal a route documents beside its answers (a conflict, a 404 on a route without an id). */
export const refusalDoc = (description: string): ResponseDoc => ({ description, schema: errorBody });

const refusal = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBody } },
});

/** The refusals a route can answer, by who may call it and whether it takes input. */
function refusals(route: RouteDoc): Record<string, ReturnType<typeof refusal>> {
  const out: Record<string, ReturnType<typeof refusal>> = {};
  if (route.body || route.query || route.path.includes(':')) out['400'] = refusal('Invalid input; names the field');
  // a public route too: a bearer that is sent must be valid
  out['401'] = refusal('Not signed in, or a credential sent is not valid');
  if (!['public', 'signed-in', 'cron', 'agent', 'enrollment'].includes(route.access) || route.method !== 'get')
    out['403'] = refusal('The account may not do this (role, grant, CSRF or Origin)');
  if (route.path.includes(':') || route.query || route.body)
    out['404'] = refusal('No such thing, or not visible to this account');
  if (route.body) {
    out['413'] = refusal('The body is larger than the route takes');
    out['415'] = refusal('The body is not JSON, or is compressed');
  }
  out['429'] = refusal('Too many requests; see Retry-After');
  out['503'] = refusal('The database does not answer; try again shortly');
  return out;
}

function operationOf(route: RouteDoc): ZodOpenApiOperationObject {
  const params = pathParams(route.path);
  const responses: Record<string, unknown> = { ...refusals(route) };
  for (const [status, response] of Object.entries(route.responses)) {
    const others = Object.fromEntries(
      Object.entries(response.alternatives ?? {}).map(([type, description]) => [
        type,
        { schema: z.string().meta({ description }) },
      ]),
    );
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema }, ...others } }
        : {}),
      ...(!response.schema && response.contentType
        ? { content: { [response.contentType]: { schema: z.string() }, ...others } }
        : {}),
    };
  }
  return {
    operationId: operationIdOf(route),
    summary: route.summary,
    description: [route.description, `**Access:** ${ACCESS_KINDS[route.access].text}`].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    security: securityOf(route.access, route.method),
    ...(params || route.query
      ? { requestParams: { ...(params ? { path: params } : {}), ...(route.query ? { query: route.query } : {}) } }
      : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { [route.bodyContentType ?? 'application/json']: { schema: route.body } },
          },
        }
      : {}),
    responses: responses as ZodOpenApiOperationObject['responses'],
  };
}

/** `post /api/clusters/:id/enrollment-key` → `postClustersIdEnrollmentKey`: stable names for generated clients. */
export function operationIdOf(route: Pick<RouteDoc, 'method' | 'path'>): string {
  const words = route.path
    .replace(/^\/api\//, '')
    .split(/[/\-.]/)
    .filter(Boolean)
    .map((word) => word.replace(/^:/, ''));
  return route.method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

export function buildOpenApi(routes: readonly RouteDoc[], version: string): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const key = openApiPath(route.path);
    paths[key] = { ...paths[key], [route.method]: operationOf(route) };
  }
  const tags = [...new Set(routes.map((route) => route.tag))].sort().map((name) => ({ name }));
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Argus API',
      version,
      description:
        'Self-hosted infrastructure monitoring. Scripts use an API token (`Authorization: Bearer argus_…`), ' +
        'made on the Account page. See docs/api.md for the conventions behind these routes.',
    },
    tags,
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'argus.sid', description: 'The console session.' },
        csrfHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description: 'With a session cookie, every write carries the token of GET /api/auth/csrf.',
        },
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (argus_…), made on the Account page.',
        },
        agentJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The agent protocol.' },
        enrollmentKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Argus-Enrollment-Key',
          description: "A cluster's enrolment key (never in the URL).",
        },
        cronSecret: { type: 'http', scheme: 'bearer', description: 'CRON_SECRET, for the scheduler.' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for a Prometheus scrape.' },
      },
    },
  }) as unknown as OpenApiDocument;
}
