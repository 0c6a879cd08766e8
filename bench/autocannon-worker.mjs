// Runs one autocannon load in a child process, so the load generator uses the second core instead of
// competing with the server for the event loop it measures. (autocannon changes behaviour inside worker
// threads, so a process it is.) Options come as JSON in argv[2]; the result goes to stdout as JSON.
import { createRequire } from 'node:module';
import process from 'node:process';

const autocannon = createRequire(import.meta.url)('autocannon');
const result = await autocannon(JSON.parse(process.argv[2]));
process.stdout.write(JSON.stringify({ latency: result.latency, requests: result.requests, non2xx: result.non2xx, errors: result.errors }));
