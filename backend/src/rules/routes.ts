/** /api/alert-rules and /api/event-rules: list, create, edit, delete (the preview: evaluation/preview-routes.ts). */
import { z } from 'zod';
import type { AuditActor } from '../lib/audit-trail.js';
import type { Principal } from '../lib/access.js';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf, type Route } from '../http/route.js';
import {
  alertRule,
  createAlertRuleSchema,
  createEventRuleSchema,
  eventRule,
  updateAlertRuleSchema,
  updateEventRuleSchema,
} from '../../../contracts/rules.js';
import type { RulesService } from './service.js';

const route = routeOf<RulesService>();
const RULES = 'Rules';
const keyTaken = refusalDoc('A rule with this key exists at this scope');
const ruleId = { id: idParam('rule') };

/** What the five routes of one kind of rule call. */
interface RuleBook<Create, Update> {
  list(principal: Principal): Promise<unknown>;
  create(actor: AuditActor, principal: Principal, input: Create): Promise<unknown>;
  get(principal: Principal, id: number): Promise<unknown>;
  update(actor: AuditActor, principal: Principal, id: number, changes: Update): Promise<unknown>;
  remove(actor: AuditActor, principal: Principal, id: number): Promise<void>;
}

/** The five routes of one kind of rule; a VIEWER never writes: refused before the body is even read. */
function crudRoutes<C extends z.ZodType, U extends z.ZodType>(
  base: string,
  what: string,
  schema: z.ZodType,
  create: C,
  update: U,
  bookOf: (rules: RulesService) => RuleBook<z.infer<C>, z.infer<U>>,
): Route<RulesService>[] {
  return [
    route({
      method: 'get',
      path: base,
      tag: RULES,
      access: 'signed-in',
      summary: `List ${what}s: the global ones and the overrides the account may see`,
      responses: { 200: { description: `The ${what}s`, schema: z.array(schema) } },
      handler: (rules, { principal }) => bookOf(rules).list(principal),
    }),
    route({
      method: 'post',
      path: base,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Create a ${what}, or an override of one for a customer, cluster or system`,
      body: create,
      responses: { 201: { description: 'Created', schema }, 409: keyTaken },
      handler: (rules, { actor, principal, body }) => bookOf(rules).create(actor, principal, body as z.infer<C>),
    }),
    route({
      method: 'get',
      path: `${base}/:id`,
      tag: RULES,
      access: 'signed-in',
      summary: `One ${what}`,
      params: ruleId,
      responses: { 200: { description: `The ${what}`, schema } },
      handler: (rules, { principal, params }) => bookOf(rules).get(principal, params.id),
    }),
    route({
      method: 'patch',
      path: `${base}/:id`,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Change a ${what}`,
      params: ruleId,
      body: update,
      responses: { 200: { description: 'Changed', schema } },
      handler: (rules, { actor, principal, params, body }) =>
        bookOf(rules).update(actor, principal, params.id, body as z.infer<U>),
    }),
    route({
      method: 'delete',
      path: `${base}/:id`,
      tag: RULES,
      access: 'admin-or-operator',
      summary: `Delete a ${what}`,
      params: ruleId,
      responses: { 204: { description: 'Deleted' } },
      handler: async (rules, { actor, principal, params }) => {
        await bookOf(rules).remove(actor, principal, params.id);
      },
    }),
  ];
}

export const rulesRoutes = [
  ...crudRoutes(
    '/api/alert-rules',
    'alert rule',
    alertRule,
    createAlertRuleSchema,
    updateAlertRuleSchema,
    (rules) => rules.alertRules,
  ),
  ...crudRoutes(
    '/api/event-rules',
    'event rule',
    eventRule,
    createEventRuleSchema,
    updateEventRuleSchema,
    (rules) => rules.eventRules,
  ),
];
