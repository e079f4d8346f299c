/**
 * The alert-rule preview ("which systems would fire now"): beside the evaluation's RuleBook it runs
 * on, so the preview never disagrees with the run. Mounted before the rules router (both under
 * /api/alert-rules).
 */
import { idParam, routeOf } from '../http/route.js';
import { createAlertRuleSchema, rulePreview, type Operator } from '../../../contracts/rules.js';
import type { RulesService } from '../rules/service.js';
import type { RulePreview } from './preview.js';

export interface RulePreviewDeps {
  rules: RulesService;
  preview: RulePreview;
}

const route = routeOf<RulePreviewDeps>();
const previewAnswer = { 200: { description: 'The systems that would fire now', schema: rulePreview } };

export const rulePreviewRoutes = [
  // an unsaved rule from the editor; the editor is for writers, so is this
  route({
    method: 'post',
    path: '/api/alert-rules/preview',
    tag: 'Rules',
    access: 'admin-or-operator',
    summary: 'Which systems an unsaved alert rule would fire for now',
    body: createAlertRuleSchema,
    responses: previewAnswer,
    handler: async ({ rules, preview }, { principal, body }) => {
      const kind = rules.alertRules.shapeOf(body);
      const siblings = (await rules.alertRules.list(principal)).filter((r) => r.key === body.key);
      return preview.preview(
        principal,
        { ...body, id: null, kind, operator: body.operator as Operator | null },
        siblings,
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/alert-rules/:id/preview',
    tag: 'Rules',
    access: 'signed-in',
    summary: 'Which systems a saved alert rule would fire for now',
    params: { id: idParam('rule') },
    responses: previewAnswer,
    handler: async ({ rules, preview }, { principal, params }) => {
      const rule = await rules.alertRules.find(principal, params.id);
      const siblings = (await rules.alertRules.list(principal)).filter((r) => r.key === rule.key);
      return preview.preview(principal, rule, siblings);
    },
  }),
];
