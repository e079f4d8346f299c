import type Koa from 'koa';

export interface RouteEntry {
  method: string;
  path: string;
}

interface RouterLike {
  stack: { methods: string[]; path: string }[];
}

/** Every method + path the app's routers serve (for table-driven rights tests and docs). */
export function listRoutes(app: Koa): RouteEntry[] {
  const routes: RouteEntry[] = [];
  for (const middleware of app.middleware) {
    const router = (middleware as unknown as { router?: RouterLike }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method !== 'HEAD') routes.push({ method, path: layer.path });
      }
    }
  }
  return routes;
}
