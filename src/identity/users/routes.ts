import { z } from 'zod';
import { PaginationQuery, pageRequest, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../auth/hooks.js';
import { PermissionList, ROLES } from '../access/permissions.js';
import { Email, Password, Username } from '../auth/schemas.js';
import type { UsersService } from './service.js';
import { UserView } from './views.js';
import { AccessFields } from '../access/content-access.js';

const UserCreate = z
  .object({
    username: Username,
    email: Email,
    password: Password,
    role: z.enum(ROLES).default('reader'),
    permissions: PermissionList.optional().describe(
      'Custom permissions on top of the role. Admin-only permissions take effect only for admins.',
    ),
    library_access: AccessFields.library_access
      .optional()
      .describe('Default: every library, or none when the setting new_users_see_all_libraries is off.'),
    age_restriction: AccessFields.age_restriction.optional(),
    labels_allow: AccessFields.labels_allow.optional(),
    labels_exclude: AccessFields.labels_exclude.optional(),
  })
  .meta({ id: 'UserCreate' });

const UserUpdate = z
  .object({
    username: Username,
    email: Email,
    password: Password,
    role: z.enum(ROLES),
    permissions: PermissionList,
    disabled: z.boolean(),
    email_verified: z.boolean(),
    ...AccessFields,
  })
  .partial()
  .meta({ id: 'UserUpdate' });

const AccessPreview = z.object(AccessFields).partial().meta({ id: 'AccessPreview' });

const count = z.number().int().min(0);
const AccessSummaryView = z
  .object({
    libraries_visible: count,
    libraries_total: count,
    series_visible: count,
    series_total: count.describe('Present series.'),
    books_visible: count,
    books_total: count.describe('Present books.'),
  })
  .meta({ id: 'AccessSummary' });

export function registerUserRoutes(app: App, users: UsersService): void {
  app.route({
    method: 'GET',
    url: '/users',
    config: { permission: 'users-read' },
    schema: { summary: 'List users', tags: ['users'], querystring: PaginationQuery, response: { 200: paginated(UserView) } },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { items, total } = await users.list(page);
      return toPage(req.url, page, total, items);
    },
  });

  app.route({
    method: 'POST',
    url: '/users',
    config: { permission: 'users-write' },
    schema: { summary: 'Create a user', tags: ['users'], body: UserCreate, response: { 201: UserView } },
    handler: async (req, reply) => reply.code(201).send(await users.create(req.body)),
  });

  app.route({
    method: 'GET',
    url: '/users/:id/access-summary',
    config: { permission: 'users-read' },
    schema: {
      summary: 'What a user sees',
      description: 'Libraries, series and books the user sees beside how many there are, by the same rules every list applies.',
      tags: ['users'],
      params: IdParams,
      response: { 200: AccessSummaryView },
    },
    handler: (req) => users.accessSummary(req.params.id),
  });

  app.route({
    method: 'POST',
    url: '/users/access-preview',
    config: { permission: 'users-read' },
    schema: {
      summary: 'What an access setting would show',
      description: 'The same counts as GET /users/{id}/access-summary for a reader with these settings (fields left out: no restriction).',
      tags: ['users'],
      body: AccessPreview,
      response: { 200: AccessSummaryView },
    },
    handler: (req) => users.accessPreview(req.body),
  });

  app.route({
    method: 'GET',
    url: '/users/:id',
    config: { permission: 'users-read' },
    schema: { summary: 'User details', tags: ['users'], params: IdParams, response: { 200: UserView } },
    handler: (req) => users.get(req.params.id),
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/users/:id',
      config: { permission: 'users-write' },
      schema: {
        summary: method === 'PUT' ? 'Update a user' : 'Update a user (partial, same body as PUT)',
        description:
          'Every field is optional; only the fields sent change. The last administrator cannot be demoted or disabled (409). ' +
          "A change of library_access, age_restriction or labels ends no session: it holds from the user's very next request. " +
          'Administrators see everything whatever these say. Unknown library ids are refused (400).',
        tags: ['users'],
        params: IdParams,
        body: UserUpdate,
        response: { 200: UserView },
      },
      handler: (req) => users.update(callerOf(req), req.params.id, req.body),
    });
  }

  app.route({
    method: 'DELETE',
    url: '/users/:id',
    config: { permission: 'users-delete' },
    schema: {
      summary: 'Delete a user',
      description: "The last administrator cannot be deleted (409). The user's API keys go with it.",
      tags: ['users'],
      params: IdParams,
    },
    handler: async (req, reply) => {
      await users.delete(req.params.id);
      return reply.code(204).send();
    },
  });
}
