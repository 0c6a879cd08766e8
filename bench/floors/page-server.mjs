/* global process, console */
// The floor of the bench's HTTP measures (issue 22): a bare node:http server in its own process answering
// GET (or any method) /p/N with fs.readFile of the Nth file given, per request (N modulo their number), with the
// media type of its extension (.jpg, .webp, .json). argv: port, then a file listing the files one per line
// (10,000 books' pages are too many for a command line). For page serving the files are the corpus's page images;
// for the other measures, the bytes the server answered, saved once. Prints "listening" once it accepts connections.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname } from 'node:path';

const TYPES = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.png': 'image/png', '.json': 'application/json' };
const [port, listFile] = process.argv.slice(2);
const files = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
const types = files.map((f) => TYPES[extname(f).toLowerCase()] ?? 'application/octet-stream');
const server = createServer((req, res) => {
  const n = Number(req.url.slice(3)) % files.length;
  readFile(files[n]).then(
    (data) => {
      res.writeHead(200, { 'content-type': types[n], 'content-length': data.length });
      res.end(data);
    },
    () => {
      res.writeHead(404);
      res.end();
    },
  );
});
server.keepAliveTimeout = 72_000;
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));
