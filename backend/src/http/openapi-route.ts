/** GET /api/openapi.json: the document, built once on first request (it never changes while running). */
import { z } from 'zod';
import { routeOf } from './route.js';

/** Builds the document's JSON text (the composition root knows the routes it describes). */
export type DocumentText = () => string;

const route = routeOf<DocumentText>();

export const openApiRoutes = [
  route({
    method: 'get',
    path: '/api/openapi.json',
    tag: 'API',
    access: 'public',
    summary: 'This document: every route, its input and its answers (OpenAPI 3.1)',
    headers: { 'Cache-Control': 'no-cache' },
    responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: (documentText, { ctx }) => {
      ctx.type = 'application/json';
      return documentText();
    },
  }),
];
