/**
 * A route is declared once: one object carries its method, path, access, the zod schemas of its
 * input and answers, and its handler. `mountRoutes` puts a feature's declarations on a Router (the
 * guard of its access kind, then its own `before` middleware, then its input parsed, then the
 * handler), and the OpenAPI document is built from the very declarations the app mounted
 * (`declaredRoutes`), so a route cannot be served undocumented or documented differently.
 *
 * The order of checks is the same on every route: who (401, then 403 from the guard), what is sent
 * (query, then body: 400 naming the field), what is named (path ids: 404), then the handler. Errors
 * are thrown as today and mapped by http/error-middleware.ts.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import type { Principal } from '../lib/access.js';
import type { AuditActor } from '../lib/audit-trail.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import { ACCESS_KINDS } from './access.js';
import { auditActor } from './audit-actor.js';
import type { RouteDoc } from './openapi.js';
import { currentPrincipal } from './route-guards.js';

/** A path id (`:id`): plain decimal within `max`, else a 404 "No such <what>" (lib/ids.ts). */
export interface IdParam {
  what: string;
  max?: number;
}

export const idParam = (what: string, max?: number): IdParam => (max === undefined ? { what } : { what, max });

/** A path segment that is no id (`:slug`, `:version`): the handler gets the text and checks it itself. */
export interface TextParam {
  text: true;
}

export const textParam: TextParam = { text: true };

type ParamsSpec = Record<string, IdParam | TextParam>;
type ParamValue<S> = S extends TextParam ? string : number;
type Parsed<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** What a handler receives: its input parsed, and who is asking. */
export interface RouteRequest<P, Q, B> {
  params: { [K in keyof P]: ParamValue<P[K]> };
  query: Parsed<Q>;
  body: Parsed<B>;
  /** The signed-in account; read on a public route without one, it is a 401. */
  readonly principal: Principal;
  /** The principal and client address, as the audit log records them. */
  readonly actor: AuditActor;
  /** The client address (http/client-ip.ts), null when unknown. */
  readonly address: string | null;
  /** Only for what a declaration cannot say: cookies, streams, headers that depend on the answer. */
  ctx: Context;
}

export interface RouteDeclaration<
  Deps,
  P extends ParamsSpec = ParamsSpec,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> extends Omit<RouteDoc, 'query' | 'body'> {
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A body the handler reads from the request stream itself (the agent's gzip report: its own
   * limit, checked after the credential): documented like `body`, never parsed here.
   */
  streamedBody?: z.ZodType;
  /** Headers of the answer, set once the input is read (`Cache-Control: no-store` for secrets). */
  headers?: Record<string, string>;
  /** Middleware between the guard and the input (a rate limit, the Origin of a public write). */
  before?(deps: Deps): Middleware[];
  /**
   * The answer's body (undefined: none, or set on ctx); its status is the declared success status.
   * (Method syntax: a list of routes with different inputs is one `Route<Deps>[]`.)
   */
  handler(deps: Deps, request: RouteRequest<P, Q, B>): unknown;
}

/** A declaration with its input types forgotten: what a feature's list holds. */
export type Route<Deps> = RouteDeclaration<Deps>;

/**
 * `const route = routeOf<CustomersService>()` fixes what a feature's handlers receive; each
 * `route({...})` then infers its own params, query and body types from its schemas.
 */
export function routeOf<Deps>() {
  return <
    P extends ParamsSpec = Record<never, IdParam>,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(
    declaration: RouteDeclaration<Deps, P, Q, B>,
  ): Route<Deps> => declaration as unknown as Route<Deps>;
}

/**
 * The status of a successful answer: the route's lowest documented 2xx or 3xx, or 426 for a route
 * served only as a protocol upgrade (its plain HTTP request is always refused).
 */
export function successStatusOf(route: Pick<RouteDoc, 'responses' | 'method' | 'path'>): number {
  const status = Object.keys(route.responses)
    .map(Number)
    .filter((code) => (code >= 200 && code < 400) || code === 426)
    .sort((a, b) => a - b)[0];
  if (status === undefined) throw new Error(`${route.method} ${route.path} documents no successful answer`);
  return status;
}

const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] as string);

function checkParams(route: Route<never>): void {
  const named = pathParamNames(route.path).sort().join();
  const declared = Object.keys(route.params ?? {})
    .sort()
    .join();
  if (named !== declared) throw new Error(`${route.method} ${route.path} declares params [${declared}]`);
}

function requestOf(
  ctx: Context,
  route: Route<never>,
): RouteRequest<ParamsSpec, z.ZodObject | undefined, z.ZodType | undefined> {
  const query = route.query ? parseInput(route.query, ctx.query) : undefined;
  const body = route.body ? parseInput(route.body, ctx.request.body) : undefined;
  const params: Record<string, number | string> = {};
  for (const [name, spec] of Object.entries(route.params ?? {}))
    params[name] = 'text' in spec ? (ctx.params[name] ?? '') : idOf(ctx.params[name], spec.what, spec.max);
  return {
    params,
    query,
    body,
    ctx,
    get principal() {
      return currentPrincipal(ctx.state);
    },
    get actor() {
      return auditActor(ctx);
    },
    get address() {
      return ctx.state.clientIp ?? null;
    },
  };
}

function handlerOf<Deps>(route: Route<Deps>, deps: Deps): Middleware {
  const status = successStatusOf(route);
  return async (ctx) => {
    const request = requestOf(ctx, route as Route<never>);
    if (route.headers) ctx.set(route.headers);
    ctx.status = status;
    const body = await route.handler(deps, request);
    if (body !== undefined) ctx.body = body;
  };
}

const declared = new WeakMap<Router, readonly RouteDoc[]>();

/** What the document says of a declaration: a streamed body is documented as its body. */
const documented = (route: Route<never>): RouteDoc =>
  route.streamedBody ? { ...route, body: route.streamedBody } : route;

/** One feature's routes on a Router of their own: guard, own middleware, input, handler. */
export function mountRoutes<Deps>(routes: readonly Route<Deps>[], deps: Deps): Router {
  const router = new Router();
  for (const route of routes) {
    checkParams(route as Route<never>);
    const guard = ACCESS_KINDS[route.access].guard;
    router[route.method](route.path, ...guard, ...(route.before?.(deps) ?? []), handlerOf(route, deps));
  }
  declared.set(router, (routes as readonly Route<never>[]).map(documented));
  return router;
}

/** The declarations a router was mounted from, if `mountRoutes` made it. */
export function declarationsOf(router: Router): readonly RouteDoc[] | undefined {
  return declared.get(router);
}

/** The routers of an app, in mounting order (`router.routes()` carries its router). */
export function routersOf(app: Koa): Router[] {
  return app.middleware.flatMap((middleware) => (middleware as unknown as { router?: Router }).router ?? []);
}

/** The declarations behind every router the app mounted with `mountRoutes`, in mounting order. */
export function declaredRoutes(app: Koa): RouteDoc[] {
  return routersOf(app).flatMap((router) => [...(declarationsOf(router) ?? [])]);
}
