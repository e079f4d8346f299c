/**
 * Every test server checks its own answers against the OpenAPI document: for a
 * documented route, the status must be documented, a JSON answer must match the documented schema,
 * and a request body the route accepted (2xx) must match the documented request schema. A mismatch
 * turns the answer into a 500 naming it, so the test that made the request fails and says why.
 * Routes not yet documented are left to openapi.test.ts's completeness check.
 */
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApi, openApiPath, type OpenApiDocument } from '../http/openapi.js';
import { declaredRoutes } from '../http/route.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, unknown> };
}

/** JSON pointer escaping of one path segment. */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** What is wrong with an exchange, by the document: null when nothing. */
function violationsOf(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const compiled = new Map<string, ValidateFunction | null>();
  const validatorAt = (ref: string): ValidateFunction | null => {
    if (!compiled.has(ref)) compiled.set(ref, ajv.getSchema(`openapi#${ref}`) ?? null);
    return compiled.get(ref) ?? null;
  };

  /** What is wrong with this exchange, or null. */
  function violation(method: string, route: string, status: number, type: string, requestBody: unknown, body: unknown) {
    const path = openApiPath(route);
    const verb = method.toLowerCase();
    const operation = (document.paths[path] as Record<string, Operation> | undefined)?.[verb];
    if (!operation) return null; // not documented yet: the completeness test names it
    const where = `${method} ${route} → ${status}`;
    const response = operation.responses[String(status)];
    if (!response) return `${where}: status not in the OpenAPI document`;
    const base = `/paths/${pointer(path)}/${verb}`;
    if (status < 300 && operation.requestBody?.content['application/json'] && requestBody !== undefined) {
      const check = validatorAt(`${base}/requestBody/content/application~1json/schema`);
      if (check && !check(requestBody))
        return `${where}: an accepted request body does not match the document: ${ajv.errorsText(check.errors)}`;
    }
    if (!response.content)
      return body === undefined || body === null || body === '' ? null : `${where}: undocumented body`;
    const mediaType = type.split(';')[0]?.trim() ?? '';
    if (!(mediaType in response.content))
      return `${where}: content type ${mediaType || '(none)'} is not documented (${Object.keys(response.content).join(', ')})`;
    if (mediaType !== 'application/json') return null;
    const check = validatorAt(`${base}/responses/${status}/content/application~1json/schema`);
    const json: unknown = typeof body === 'string' ? JSON.parse(body) : JSON.parse(JSON.stringify(body));
    if (check && !check(json))
      return `${where}: the answer does not match the document: ${ajv.errorsText(check.errors)}`;
    return null;
  }
  return violation;
}

/**
 * The document is the one the first app checked describes (every test app mounts the same
 * declarations), built on its first answer.
 */
export function createAnswerCheck(
  documentOf: (app: Koa) => OpenApiDocument = (app) => buildOpenApi(declaredRoutes(app), '0'),
) {
  let violation: ReturnType<typeof violationsOf> | undefined;
  const middleware: Middleware = async (ctx, next) => {
    await next();
    const route = (ctx as { _matchedRoute?: string })._matchedRoute;
    if (!route || ctx.status >= 500) return;
    const isStream = typeof (ctx.body as { pipe?: unknown } | null)?.pipe === 'function';
    violation ??= violationsOf(documentOf(ctx.app));
    const problem = violation(
      ctx.method,
      route,
      ctx.status,
      ctx.response.type,
      (ctx.request as { body?: unknown }).body,
      isStream || Buffer.isBuffer(ctx.body) ? undefined : ctx.body,
    );
    if (!problem) return;
    console.error(`OpenAPI conformance: ${problem}`);
    ctx.status = 500;
    ctx.body = { error: `OpenAPI conformance: ${problem}`, code: 'openapi_conformance' };
  };
  return { middleware };
}
