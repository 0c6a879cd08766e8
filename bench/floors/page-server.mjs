/* global process, console */
// The page-serving floor (issue 22): a bare node:http server in its own process answering GET /p/N with
// fs.readFile of the Nth file given, per request, as image/jpeg. argv: port, then a file listing the page files
// one per line (10,000 books' pages are too many for a command line). Prints "listening" once it accepts
// connections.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';

const [port, listFile] = process.argv.slice(2);
const files = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
const server = createServer((req, res) => {
  const file = files[Number(req.url.slice(3)) % files.length];
  readFile(file).then(
    (data) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': data.length });
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
