/** /api/alert-rules and /api/event-rules: list, create, edit, delete; the alert-rule preview. */
import Router from '@koa/router';
import { idOf } from '../customers/routes.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { RulePreview } from './preview.js';
import type { Operator } from '../evaluation/condition.js';
import {
  createAlertRuleSchema,
  createEventRuleSchema,
  updateAlertRuleSchema,
  updateEventRuleSchema,
} from './schema.js';
import type { RulesService } from './service.js';

export function rulesRoutes({ rules, preview }: { rules: RulesService; preview: RulePreview }): Router {
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
    ctx.body = await alerts.create(principal, parseInput(createAlertRuleSchema, ctx.request.body));
  });
  // an unsaved rule from the editor; the editor is for writers, so is this
  router.post('/api/alert-rules/preview', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(createAlertRuleSchema, ctx.request.body);
    const kind = alerts.shapeOf(input);
    const siblings = (await alerts.list(principal)).filter((r) => r.key === input.key);
    ctx.body = await preview.preview(
      principal,
      { ...input, id: null, kind, operator: input.operator as Operator | null },
      siblings,
    );
  });
  router.get('/api/alert-rules/:id', async (ctx) => {
    ctx.body = await alerts.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
  });
  router.get('/api/alert-rules/:id/preview', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const rule = await alerts.find(principal, idOf(ctx.params['id'], 'rule'));
    const siblings = (await alerts.list(principal)).filter((r) => r.key === rule.key);
    ctx.body = await preview.preview(principal, rule, siblings);
  });
  router.patch('/api/alert-rules/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const changes = parseInput(updateAlertRuleSchema, ctx.request.body);
    ctx.body = await alerts.update(principal, idOf(ctx.params['id'], 'rule'), changes);
  });
  router.delete('/api/alert-rules/:id', writer, async (ctx) => {
    await alerts.remove(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
    ctx.status = 204;
  });

  router.get('/api/event-rules', async (ctx) => {
    ctx.body = await events.list(currentPrincipal(ctx.state));
  });
  router.post('/api/event-rules', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.status = 201;
    ctx.body = await events.create(principal, parseInput(createEventRuleSchema, ctx.request.body));
  });
  router.get('/api/event-rules/:id', async (ctx) => {
    ctx.body = await events.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
  });
  router.patch('/api/event-rules/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const changes = parseInput(updateEventRuleSchema, ctx.request.body);
    ctx.body = await events.update(principal, idOf(ctx.params['id'], 'rule'), changes);
  });
  router.delete('/api/event-rules/:id', writer, async (ctx) => {
    await events.remove(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'rule'));
    ctx.status = 204;
  });
  return router;
}
