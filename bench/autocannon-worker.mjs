// Runs one autocannon load in a child process, so the load generator uses the second core instead of
// competing with the server for the event loop it measures. (autocannon changes behaviour inside worker
// threads, so a process it is.) Options come as JSON in the file named by argv[2] (10,000 books' page paths are
// too long for a command line); the result goes to stdout as JSON.
// autocannon's summary has no 95th percentile, which the goals are stated in: every measured response time
// (not those of the warmup) is kept and the percentiles are taken from them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';

const autocannon = createRequire(import.meta.url)('autocannon');
const options = JSON.parse(readFileSync(process.argv[2], 'utf8'));
// `randomPaths`: every request of every connection picks one at random (a `requests` list is walked in the same
// order by every connection, so all connections would hit the same few URLs at once).
const { randomPaths } = options;
if (Array.isArray(randomPaths)) {
  delete options.randomPaths;
  options.requests = [
    { method: 'GET', setupRequest: (req) => ({ ...req, path: randomPaths[Math.floor(Math.random() * randomPaths.length)] }) },
  ];
}
const instance = autocannon(options);
const times = [];
instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
const result = await instance;
times.sort((a, b) => a - b);
const at = (q) => (times.length ? Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 100) / 100 : 0);
const exact = { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
process.stdout.write(
  JSON.stringify({
    latency: { ...result.latency, exact },
    requests: result.requests,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodeStats: result.statusCodeStats,
  }),
);
