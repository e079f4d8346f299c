/** /api/alert-rules and /api/event-rules: list, create, edit, delete (the preview: evaluation/preview-routes.ts). */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { idOf } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import {
  createAlertRuleSchema,
  createEventRuleSchema,
  updateAlertRuleSchema,
  updateEventRuleSchema,
} from '../../../contracts/rules.js';
import type { RulesService } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { z } from 'zod';
import { alertRule, eventRule } from '../../../contracts/rules.js';

export function rulesRoutes(rules: RulesService): Router {
  const router = new Router();
  // a VIEWER never writes: refused before the body is even read
  const writer = requireRole('ADMIN', 'OPERATOR');
  const alerts = rules.alertRules;
  const events = rules.eventRules;

  router.get('/api/alert-rules', async (ctx) => {
    ctx.body = await alerts.list(currentPrincipal(ctx.state));
  });
  router.post('/api/alert-rules', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.status = 201;
    ctx.body = await alerts.create(auditActor(ctx), principal, parseInput(createAlertRuleSchema, ctx.request.body));
  });
  router.get('/api/alert-rules/:id', async (ctx) => {
    ctx.body = await alerts.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
  });
  router.patch('/api/alert-rules/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const changes = parseInput(updateAlertRuleSchema, ctx.request.body);
    ctx.body = await alerts.update(auditActor(ctx), principal, idOf(ctx.params['id'], 'rule'), changes);
  });
  router.delete('/api/alert-rules/:id', writer, async (ctx) => {
    await alerts.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
    ctx.status = 204;
  });

  router.get('/api/event-rules', async (ctx) => {
    ctx.body = await events.list(currentPrincipal(ctx.state));
  });
  router.post('/api/event-rules', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.status = 201;
    ctx.body = await events.create(auditActor(ctx), principal, parseInput(createEventRuleSchema, ctx.request.body));
  });
  router.get('/api/event-rules/:id', async (ctx) => {
    ctx.body = await events.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
  });
  router.patch('/api/event-rules/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const changes = parseInput(updateEventRuleSchema, ctx.request.body);
    ctx.body = await events.update(auditActor(ctx), principal, idOf(ctx.params['id'], 'rule'), changes);
  });
  router.delete('/api/event-rules/:id', writer, async (ctx) => {
    await events.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
    ctx.status = 204;
  });
  return router;
}

/** What rules/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const RULES = 'Rules';
const keyTaken = refusalDoc('A rule with this key exists at this scope');
/** The five routes of one kind of rule. */
function crudDocs(base: string, what: string, schema: z.ZodType, create: z.ZodType, update: z.ZodType): RouteDoc[] {
  return [
    {
      method: 'get',
      path: base,
      tag: RULES,
      access: 'signed-in',
      summary: `List ${what}s: the global ones and the overrides the account may see`,
      responses: { 200: { description: `The ${what}s`, schema: z.array(schema) } },
    },
    {
      method: 'post',
      path: base,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Create a ${what}, or an override of one for a customer, cluster or system`,
      body: create,
      responses: { 201: { description: 'Created', schema }, 409: keyTaken },
    },
    {
      method: 'get',
      path: `${base}/:id`,
      tag: RULES,
      access: 'signed-in',
      summary: `One ${what}`,
      responses: { 200: { description: `The ${what}`, schema } },
    },
    {
      method: 'patch',
      path: `${base}/:id`,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Change a ${what}`,
      body: update,
      responses: { 200: { description: 'Changed', schema } },
    },
    {
      method: 'delete',
      path: `${base}/:id`,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Delete a ${what}`,
      responses: { 204: { description: 'Deleted' } },
    },
  ];
}
export const rulesApi: RouteDoc[] = [
  ...crudDocs('/api/alert-rules', 'alert rule', alertRule, createAlertRuleSchema, updateAlertRuleSchema),
  ...crudDocs('/api/event-rules', 'event rule', eventRule, createEventRuleSchema, updateEventRuleSchema),
];
