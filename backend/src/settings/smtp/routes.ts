/**
 * /api/settings/smtp (docs/api.md "Settings"): administrators only. The password
 * is write-only: answers carry `passwordSet`, never the value.
 */
import { HttpError } from '../../http/errors.js';
import { routeOf } from '../../http/route.js';
import type { SmtpMailer } from '../../mail/smtp-mailer.js';
import type { SmtpSettingsService } from './service.js';
import { refusalDoc } from '../../http/openapi.js';
import { smtpSettings, smtpSettingsSchema, smtpTestSchema, smtpTestSent } from '../../../../contracts/settings.js';

export interface SmtpSettingsRoutesDeps {
  smtp: Pick<SmtpSettingsService, 'get' | 'update'>;
  mailer: Pick<SmtpMailer, 'sendTest'>;
}

const route = routeOf<SmtpSettingsRoutesDeps>();
const tag = 'Settings';

export const smtpSettingsRoutes = [
  route({
    method: 'get',
    path: '/api/settings/smtp',
    tag,
    access: 'admin',
    summary: 'The SMTP settings (the password only as `passwordSet`)',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The settings', schema: smtpSettings } },
    handler: ({ smtp }) => smtp.get(),
  }),
  route({
    method: 'put',
    path: '/api/settings/smtp',
    tag,
    access: 'admin',
    summary: 'Replace the SMTP settings; the next mail uses them',
    description: '`password` absent keeps the stored one, empty removes it.',
    body: smtpSettingsSchema,
    responses: { 200: { description: 'The saved settings', schema: smtpSettings } },
    handler: ({ smtp }, { actor, body }) => smtp.update(body, actor),
  }),
  route({
    method: 'post',
    path: '/api/settings/smtp/test',
    tag,
    access: 'admin',
    summary: 'Send a test message with the saved settings (to `to`, or to the own address)',
    body: smtpTestSchema,
    responses: {
      200: { description: 'Sent', schema: smtpTestSent },
      502: refusalDoc('The mail server refused or did not answer; the message names the step'),
    },
    handler: async ({ mailer }, { principal, body }) => {
      try {
        await mailer.sendTest(body.to ?? principal.email);
      } catch (error) {
        // the mailer's messages name the step that failed and never carry the password
        throw new HttpError(
          502,
          error instanceof Error ? error.message : 'Sending the test message failed',
          'smtp_failed',
        );
      }
      return { sent: true };
    },
  }),
];
