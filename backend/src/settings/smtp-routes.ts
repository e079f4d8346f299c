/**
 * /api/settings/smtp (docs/api.md "Settings"): administrators only. The password
 * is write-only: answers carry `passwordSet`, never the value.
 */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { HttpError } from '../http/errors.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import type { SmtpMailer } from '../mail/smtp-mailer.js';
import { parseInput } from '../lib/validate.js';
import type { SmtpSettingsService } from './smtp-service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { smtpSettings, smtpSettingsSchema, smtpTestSchema, smtpTestSent } from '../../../contracts/settings.js';

export interface SmtpSettingsRoutesDeps {
  smtp: Pick<SmtpSettingsService, 'get' | 'update'>;
  mailer: Pick<SmtpMailer, 'sendTest'>;
}

export function smtpSettingsRoutes({ smtp, mailer }: SmtpSettingsRoutesDeps): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/settings/smtp', admin, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await smtp.get();
  });

  router.put('/api/settings/smtp', admin, async (ctx) => {
    ctx.body = await smtp.update(parseInput(smtpSettingsSchema, ctx.request.body), auditActor(ctx));
  });

  router.post('/api/settings/smtp/test', admin, async (ctx) => {
    const { to } = parseInput(smtpTestSchema, ctx.request.body);
    try {
      await mailer.sendTest(to ?? currentPrincipal(ctx.state).email);
    } catch (error) {
      // the mailer's messages name the step that failed and never carry the password
      throw new HttpError(
        502,
        error instanceof Error ? error.message : 'Sending the test message failed',
        'smtp_failed',
      );
    }
    ctx.body = { sent: true };
  });

  return router;
}

const SETTINGS = 'Settings';
/** What settings/smtp-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const smtpSettingsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/settings/smtp',
    tag: SETTINGS,
    access: 'admin',
    summary: 'The SMTP settings (the password only as `passwordSet`)',
    responses: { 200: { description: 'The settings', schema: smtpSettings } },
  },
  {
    method: 'put',
    path: '/api/settings/smtp',
    tag: SETTINGS,
    access: 'admin',
    summary: 'Replace the SMTP settings; the next mail uses them',
    description: '`password` absent keeps the stored one, empty removes it.',
    body: smtpSettingsSchema,
    responses: { 200: { description: 'The saved settings', schema: smtpSettings } },
  },
  {
    method: 'post',
    path: '/api/settings/smtp/test',
    tag: SETTINGS,
    access: 'admin',
    summary: 'Send a test message with the saved settings (to `to`, or to the own address)',
    body: smtpTestSchema,
    responses: {
      200: { description: 'Sent', schema: smtpTestSent },
      502: refusalDoc('The mail server refused or did not answer; the message names the step'),
    },
  },
];
