/**
 * The alert-rule preview ("which systems would fire now"): beside the evaluation's RuleBook it runs
 * on, so the preview never disagrees with the run. Mounted before the rules router (both under
 * /api/alert-rules).
 */
import Router from '@koa/router';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import { createAlertRuleSchema, rulePreview, type Operator } from '../../../contracts/rules.js';
import type { RulesService } from '../rules/service.js';
import type { RulePreview } from './preview.js';
import type { RouteDoc } from '../http/openapi.js';

export function rulePreviewRoutes({ rules, preview }: { rules: RulesService; preview: RulePreview }): Router {
  const router = new Router();
  const writer = requireRole('ADMIN', 'OPERATOR');
  const alerts = rules.alertRules;

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
  router.get('/api/alert-rules/:id/preview', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const rule = await alerts.find(principal, idOf(ctx.params['id'], 'rule'));
    const siblings = (await alerts.list(principal)).filter((r) => r.key === rule.key);
    ctx.body = await preview.preview(principal, rule, siblings);
  });
  return router;
}

/** What evaluation/preview-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const previewAnswer = { 200: { description: 'The systems that would fire now', schema: rulePreview } };
export const rulePreviewApi: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/alert-rules/preview',
    tag: 'Rules',
    access: 'admin-or-operator',
    summary: 'Which systems an unsaved alert rule would fire for now',
    body: createAlertRuleSchema,
    responses: previewAnswer,
  },
  {
    method: 'get',
    path: '/api/alert-rules/:id/preview',
    tag: 'Rules',
    access: 'signed-in',
    summary: 'Which systems a saved alert rule would fire for now',
    responses: previewAnswer,
  },
];
