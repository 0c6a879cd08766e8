import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { ReadingStats, ReadingStatsQuery } from './schemas.js';
import type { StatsService } from './service.js';

export function registerStatsRoutes(app: App, stats: StatsService): void {
  app.route({
    method: 'GET',
    url: '/reading-stats',
    config: { permission: 'progress-read' },
    schema: {
      summary: 'Reading statistics',
      description:
        'Books completed, pages read, reading time, streaks, per-day activity, per-device breakdown (API key, X-Device-Id, or User-Agent hash), ' +
        'top series, and a "Removed from library" line for activity on purged books.',
      tags: ['progress'],
      querystring: ReadingStatsQuery,
      response: { 200: ReadingStats },
    },
    handler: (req) => stats.forCaller(callerOf(req), req.query.days),
  });
}
