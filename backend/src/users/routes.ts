/** /api/users (ADMIN) and /api/account (every account, its own profile and password). */
import Router from '@koa/router';
import { idOf } from '../lib/ids.js';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { UsersService } from './service.js';
import { z } from 'zod';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import {
  createUserBody,
  passwordChangeBody,
  profileBody,
  updateUserBody,
  user,
  userAnswer,
} from '../../../contracts/accounts.js';

const userId = (raw: string | undefined): number => idOf(raw, 'user');

export function usersRoutes(users: UsersService): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/users', admin, async (ctx) => {
    ctx.body = await users.list();
  });

  router.post('/api/users', admin, async (ctx) => {
    const input = parseInput(createUserBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = { user: await users.create(auditActor(ctx), input) };
  });

  router.patch('/api/users/:id', admin, async (ctx) => {
    const input = parseInput(updateUserBody, ctx.request.body);
    ctx.body = { user: await users.update(auditActor(ctx), userId(ctx.params['id']), input) };
  });

  router.delete('/api/users/:id', admin, async (ctx) => {
    await users.remove(auditActor(ctx), userId(ctx.params['id']));
    ctx.status = 204;
  });

  router.patch('/api/account', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(profileBody, ctx.request.body);
    ctx.body = { user: await users.updateProfile(auditActor(ctx), principal.userId, input) };
  });

  router.post('/api/account/password', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(passwordChangeBody, ctx.request.body);
    await users.changePassword(
      auditActor(ctx),
      principal.userId,
      input.currentPassword,
      input.newPassword,
      principal.sessionId,
    );
    ctx.status = 204;
  });

  return router;
}

const USERS = 'Users';
const ACCOUNT = 'Account';
const taken = refusalDoc('Another account uses this e-mail address or username');
const lastAdmin = refusalDoc('The last active administrator cannot be deleted, disabled or demoted');
/** What users/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const usersApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/users',
    tag: USERS,
    access: 'admin',
    summary: 'List every account with its customer grants',
    responses: { 200: { description: 'The accounts', schema: z.array(user) } },
  },
  {
    method: 'post',
    path: '/api/users',
    tag: USERS,
    access: 'admin',
    summary: 'Create an account',
    body: createUserBody,
    responses: { 201: { description: 'Created', schema: userAnswer }, 409: taken },
  },
  {
    method: 'patch',
    path: '/api/users/:id',
    tag: USERS,
    access: 'admin',
    summary: 'Change an account: fields, role, grants, disabled, a new password',
    description: 'Disabling an account or setting its password ends its browser sessions.',
    body: updateUserBody,
    responses: {
      200: { description: 'Changed', schema: userAnswer },
      409: refusalDoc(
        'Another account uses this e-mail address or username, or this would remove the last active administrator',
      ),
    },
  },
  {
    method: 'delete',
    path: '/api/users/:id',
    tag: USERS,
    access: 'admin',
    summary: 'Delete an account',
    responses: { 204: { description: 'Deleted' }, 409: lastAdmin },
  },
  {
    method: 'patch',
    path: '/api/account',
    tag: ACCOUNT,
    access: 'signed-in',
    summary: "Change the own account's profile and alert e-mails",
    body: profileBody,
    responses: { 200: { description: 'Changed', schema: userAnswer }, 409: taken },
  },
  {
    method: 'post',
    path: '/api/account/password',
    tag: ACCOUNT,
    access: 'signed-in',
    summary: 'Change the own password (the current one is required)',
    description: "The account's other browser sessions end.",
    body: passwordChangeBody,
    responses: { 204: { description: 'Changed' } },
  },
];
