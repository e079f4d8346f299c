/** /api/users (ADMIN) and /api/account (every account, its own profile and password). */
import { z } from 'zod';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
import type { UsersService } from './service.js';
import {
  createUserBody,
  passwordChangeBody,
  profileBody,
  updateUserBody,
  userAnswer,
  userListItem,
} from '../../../contracts/accounts.js';

const route = routeOf<UsersService>();
const USERS = 'Users';
const ACCOUNT = 'Account';
const userId = { id: idParam('user') };
const taken = refusalDoc('Another account uses this e-mail address or username');
const lastAdmin = refusalDoc(
  'The last active administrator cannot be deleted, disabled or demoted (nor the last break-glass one while ' +
    'password sign-in is refused)',
);

export const usersRoutes = [
  route({
    method: 'get',
    path: '/api/users',
    tag: USERS,
    access: 'admin',
    summary: 'List every account with its customer grants, how it signs in and when it last did',
    responses: { 200: { description: 'The accounts', schema: z.array(userListItem) } },
    handler: (users) => users.list(),
  }),
  route({
    method: 'post',
    path: '/api/users',
    tag: USERS,
    access: 'admin',
    summary: 'Create an account',
    body: createUserBody,
    responses: { 201: { description: 'Created', schema: userAnswer }, 409: taken },
    handler: async (users, { actor, body }) => ({ user: await users.create(actor, body) }),
  }),
  route({
    method: 'patch',
    path: '/api/users/:id',
    tag: USERS,
    access: 'admin',
    summary: 'Change an account: fields, role, grants, disabled, a new password, break-glass',
    description:
      'Disabling an account or setting its password ends its browser sessions. `breakGlass` (administrators ' +
      'with a password only): may always sign in with a password, even when password sign-in is refused.',
    params: userId,
    body: updateUserBody,
    responses: {
      200: { description: 'Changed', schema: userAnswer },
      409: refusalDoc(
        'Another account uses this e-mail address or username, or this would remove the last active administrator ' +
          'or the last break-glass one while password sign-in is refused',
      ),
    },
    handler: async (users, { actor, params, body }) => ({ user: await users.update(actor, params.id, body) }),
  }),
  route({
    method: 'delete',
    path: '/api/users/:id',
    tag: USERS,
    access: 'admin',
    summary: 'Delete an account',
    params: userId,
    responses: { 204: { description: 'Deleted' }, 409: lastAdmin },
    handler: async (users, { actor, params }) => {
      await users.remove(actor, params.id);
    },
  }),
  route({
    method: 'patch',
    path: '/api/account',
    tag: ACCOUNT,
    access: 'signed-in',
    summary: "Change the own account's profile and alert e-mails",
    body: profileBody,
    responses: { 200: { description: 'Changed', schema: userAnswer }, 409: taken },
    handler: async (users, { actor, principal, body }) => ({
      user: await users.updateProfile(actor, principal.userId, body),
    }),
  }),
  route({
    method: 'post',
    path: '/api/account/password',
    tag: ACCOUNT,
    access: 'signed-in',
    summary: 'Change the own password (the current one is required)',
    description: "The account's other browser sessions end.",
    body: passwordChangeBody,
    responses: { 204: { description: 'Changed' } },
    handler: async (users, { actor, principal, body }) => {
      await users.changePassword(actor, principal.userId, body.currentPassword, body.newPassword, principal.sessionId);
    },
  }),
];
