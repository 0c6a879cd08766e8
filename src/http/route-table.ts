import type { FastifyInstance } from 'fastify';

/** One registered route: its method and URL as registered, parameters included (`/api/v1/books/:id`). */
export interface RouteEntry {
  method: string;
  url: string;
}

/**
 * Records every route registered from now on (an onRoute hook on the root reaches every plugin registered after
 * it). Rules that must hold on every route — access, what a reader may see — are tested by walking this table,
 * so a new route is covered without anyone listing it.
 */
export function recordRouteTable(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url });
  });
}
