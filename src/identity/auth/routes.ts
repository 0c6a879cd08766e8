import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { App } from '../../http/types.js';
import { toUserSummary } from './accounts.js';
import { callerOf } from './hooks.js';
import { sortPermissions } from '../access/permissions.js';
import { Email, LoginBody, LoginResponse, MeView, NewAccountBody } from './schemas.js';
import type { AuthService, ReplyContext } from './service.js';
import { requestLanguage, say } from '../../i18n/request.js';

const RegisterResponse = z
  .object({
    user: z.object({ id: z.uuid(), username: z.string(), email: z.string(), role: z.string() }),
    verification_required: z.boolean().describe('True when the account must verify its e-mail before logging in.'),
  })
  .meta({ id: 'RegisterResponse' });

const Accepted = z.object({ message: z.string() });

export function registerAuthRoutes(app: App, auth: AuthService, publicUrl: string | undefined): void {
  const baseUrl = (req: FastifyRequest) => publicUrl?.replace(/\/$/, '') ?? `${req.protocol}://${req.host}`;
  const replyTo = (req: FastifyRequest): ReplyContext => ({ baseUrl: baseUrl(req), language: requestLanguage(req) });

  app.route({
    method: 'POST',
    url: '/auth/login',
    config: { public: true },
    schema: {
      summary: 'Log in with username (or e-mail) and password',
      description:
        'Wrong credentials answer 401 with one generic message. After 5 failed password checks for one account (here or as Basic credentials on any route; its username and e-mail address count together), the account is locked for 2^(n-5) seconds (up to 15 minutes): 429 `rate_limit_exceeded` with Retry-After, here and for its Basic credentials everywhere. Accounts awaiting e-mail verification get 403 `EmailNotVerified`.',
      tags: ['auth'],
      security: [],
      body: LoginBody,
      response: { 200: LoginResponse },
    },
    handler: (req) => auth.login(req.body.username, req.body.password),
  });

  app.route({
    method: 'POST',
    url: '/auth/register',
    config: { public: true },
    schema: {
      summary: 'Register a reader account',
      description:
        'Allowed only when the admin setting `registration_enabled` is on (403 otherwise). With `email_verification_required`, a verification link is e-mailed (or logged when no SMTP server is configured).',
      tags: ['auth'],
      security: [],
      body: NewAccountBody,
      response: { 201: RegisterResponse },
    },
    handler: async (req, reply) => reply.code(201).send(await auth.register(req.body, replyTo(req))),
  });

  app.route({
    method: 'POST',
    url: '/auth/logout',
    schema: { summary: 'Log out (revoke the JWT used for this request)', tags: ['auth'] },
    handler: async (req, reply) => {
      await auth.logout(callerOf(req));
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'POST',
    url: '/auth/logout-all',
    schema: {
      summary: 'Sign out everywhere (end every session of the account)',
      description:
        "Ends every JWT and Komga session of the caller's account at once, on every instance, the one used for this request included (log in again afterwards). API keys and Basic credentials are not sessions and keep working: revoke a key with DELETE /api-keys/{id}. An API key cannot call this (403). A password change, disabling or re-enabling the account, and a new role or permissions end the sessions the same way. 204.",
      tags: ['auth'],
    },
    handler: async (req, reply) => {
      await auth.logoutEverywhere(callerOf(req));
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'GET',
    url: '/auth/me',
    schema: { summary: 'Current user with effective permissions', tags: ['auth'], response: { 200: MeView } },
    handler: (req) => {
      const caller = callerOf(req);
      return {
        ...toUserSummary(caller.user),
        permissions: sortPermissions(caller.permissions),
        auth_method: caller.method,
        api_key_id: caller.apiKeyId,
        restricted: !caller.scope.all,
      };
    },
  });

  app.route({
    method: 'POST',
    url: '/auth/verify-email',
    config: { public: true },
    schema: {
      summary: 'Verify an e-mail token',
      tags: ['auth'],
      security: [],
      body: z.object({ token: z.string().min(1).max(200) }),
      response: { 200: z.object({ verified: z.literal(true) }) },
    },
    handler: async (req) => {
      await auth.verifyEmail(req.body.token);
      return { verified: true as const };
    },
  });

  app.route({
    method: 'POST',
    url: '/auth/resend-verification',
    config: { public: true },
    schema: {
      summary: 'Resend the verification message',
      description: 'Always answers 202, whatever the address, so it reveals nothing about accounts.',
      tags: ['auth'],
      security: [],
      body: z.object({ email: Email }),
      response: { 202: Accepted },
    },
    handler: async (req, reply) => {
      await auth.resendVerification(req.body.email, replyTo(req));
      return reply
        .code(202)
        .send({ message: say(req, 'If an unverified account uses this address, a new verification message is on its way.') });
    },
  });
}
