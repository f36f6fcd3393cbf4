// The package as a user gets it: `npm pack`, installed offline into an empty project, imported by
// its name from a Node script that handshakes (long-polling, against a stub server in this
// process), and its types checked by tsc through the package's own `exports`. No network: the
// package has no run-time dependencies and npm works on a cache of its own in a temp directory.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as sources from '../src/index.js';

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
const tsc = join(packageDir, 'node_modules', 'typescript', 'bin', 'tsc');
/** Each npm, node or tsc run is killed after this long, so the test ends even when one hangs. */
const STEP_TIMEOUT_MS = 60_000;

/** Runs the npm that runs this test when there is one (npm sets npm_execpath), else the npm on the PATH. */
function npm(args, cwd, cache) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath && execPath.endsWith('.js') ? [process.execPath, [execPath]] : ['npm', []];
  return run(command, [...prefix, ...args, '--cache', cache, '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd, timeout: STEP_TIMEOUT_MS });
}

/** A Bayeux server just big enough for a handshake, a first connect and a disconnect, over long-polling. */
function stubServer() {
  const received = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      const replies = JSON.parse(body).map((message) => {
        received.push(message);
        const { id, channel } = message;
        switch (channel) {
          case '/meta/handshake':
            return { id, channel, successful: true, version: '1.0', clientId: 'stub-1', supportedConnectionTypes: ['long-polling'],
              advice: { reconnect: 'retry', interval: 0, timeout: 30000 } };
          case '/meta/connect':
            // A long interval: the script disconnects before the client would connect again.
            return { id, channel, successful: true, advice: { reconnect: 'retry', interval: 60000 } };
          default:
            return { id, channel, successful: true };
        }
      });
      response.writeHead(200, { 'Content-Type': 'application/json;charset=UTF-8' });
      response.end(JSON.stringify(replies));
    });
  });
  return { server, received };
}

// Imports the package by its name, handshakes, waits for the first connect, disconnects, and
// prints what it saw as JSON. The parent kills it after STEP_TIMEOUT_MS; its own bound is shorter.
const CONSUMER_SCRIPT = `
import * as api from 'bayeux-client';
import { AckExtension } from 'bayeux-client/extensions/ack';
import { LongPollingTransport } from 'bayeux-client/transports/long-polling';
import { createRequire } from 'node:module';

const bound = setTimeout(() => { console.error('consumer: no disconnect within 20 s'); process.exit(2); }, 20000);
const client = new api.BayeuxClient({ url: process.argv[2], transports: ['long-polling'], logLevel: 'off' });
client.registerExtension('ack', new AckExtension());
const connected = new Promise((resolve) => client.addListener('/meta/connect', resolve));
const handshake = await new Promise((resolve) => client.handshake(resolve));
const connect = await connected;
const status = client.getStatus();
const disconnect = await new Promise((resolve) => client.disconnect(resolve));
clearTimeout(bound);
console.log(JSON.stringify({
  exports: Object.keys(api).sort(),
  subpaths: [AckExtension === api.AckExtension, LongPollingTransport === api.LongPollingTransport],
  version: createRequire(import.meta.url)('bayeux-client/package.json').version,
  handshake: handshake.successful, clientId: handshake.clientId, connect: connect.successful, status,
  disconnect: disconnect.successful,
}));
`;

// Compiled by tsc against the installed package: its root and subpath exports must resolve to types.
const CONSUMER_TYPES = `
import { BayeuxClient, type Reply, type Configuration } from 'bayeux-client';
import { AckExtension } from 'bayeux-client/extensions/ack';
import { WebSocketTransport } from 'bayeux-client/transports/websocket';

const configuration: Configuration = { url: 'http://127.0.0.1:8080/cometd', transports: ['long-polling'] };
const client = new BayeuxClient(configuration);
client.registerExtension('ack', new AckExtension());
client.handshake((reply: Reply) => { const ok: boolean = reply.successful; void ok; });
const transport: WebSocketTransport | null = null;
void transport;
// @ts-expect-error: a misspelt option is a type error, so the types are really in use (not any).
new BayeuxClient({ ur: 'http://127.0.0.1:8080/cometd' });
`;

describe(`the packed ${manifest.name} installed into an empty project`, { timeout: 5 * STEP_TIMEOUT_MS }, () => {
  let work;
  let project;
  let packed;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'bayeux-client-pack-'));
    const cache = join(work, 'npm-cache');
    const { stdout } = await npm(['pack', '--json', '--pack-destination', work], packageDir, cache);
    [packed] = JSON.parse(stdout);
    project = join(work, 'consumer');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npm(['install', '--offline', join(work, packed.filename)], project, cache);
  });

  after(async () => {
    if (work) {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('holds the sources, the types, the README and the LICENSE, and nothing else', () => {
    const files = packed.files.map((f) => f.path);
    for (const expected of ['package.json', 'LICENSE', 'README.md', 'src/index.js', 'types/index.d.ts']) {
      assert.ok(files.includes(expected), `${expected} is missing from ${packed.filename}: ${files.join(', ')}`);
    }
    const strays = files.filter((f) => !/^(src|types)\//.test(f) && !['package.json', 'LICENSE', 'README.md'].includes(f));
    assert.deepEqual(strays, []);
  });

  it('declares no run-time dependency', async () => {
    const installed = JSON.parse(await readFile(join(project, 'node_modules', manifest.name, 'package.json'), 'utf8'));
    assert.equal(installed.dependencies, undefined);
    assert.equal(installed.license, 'Apache-2.0');
  });

  it('is imported by its name and handshakes, connects and disconnects', async () => {
    const { server, received } = stubServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await writeFile(join(project, 'consumer.js'), CONSUMER_SCRIPT);
      const url = `http://127.0.0.1:${server.address().port}/cometd`;
      const { stdout } = await run(process.execPath, ['consumer.js', url], { cwd: project, timeout: STEP_TIMEOUT_MS });
      const seen = JSON.parse(stdout);
      assert.deepEqual(seen.exports, Object.keys(sources).sort());
      assert.deepEqual(seen.subpaths, [true, true]);
      assert.equal(seen.version, manifest.version);
      assert.deepEqual(
        { handshake: seen.handshake, clientId: seen.clientId, connect: seen.connect, status: seen.status, disconnect: seen.disconnect },
        { handshake: true, clientId: 'stub-1', connect: true, status: 'connected', disconnect: true });
      assert.deepEqual(received.map((m) => m.channel), ['/meta/handshake', '/meta/connect', '/meta/disconnect']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives TypeScript its types through the package exports', async () => {
    await writeFile(join(project, 'check.ts'), CONSUMER_TYPES);
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [] },
      files: ['check.ts'],
    }));
    await run(process.execPath, [tsc, '-p', project], { cwd: project, timeout: STEP_TIMEOUT_MS })
      .catch((error) => assert.fail(`tsc failed:\n${error.stdout}${error.stderr}`));
  });
});
