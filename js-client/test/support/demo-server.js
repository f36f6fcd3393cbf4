// Starts the real demo server (io.bayeux.examples.DemoServer) in its own JVM, on a free port
// or a given one, and kills it by pid. Needs `mvn -DskipTests -pl examples -am package` first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const classes = path.join(repo, 'examples/target/classes');
const lib = path.join(repo, 'examples/target/lib');
const STARTUP_TIMEOUT = 30000;
const live = new Set();

process.on('exit', () => {
  for (const child of live) {
    child.kill('SIGKILL');
  }
});

function javaBinary() {
  if (process.env.BAYEUX_JAVA) {
    return process.env.BAYEUX_JAVA;
  }
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/**
 * Starts the demo; resolves with `{url, origin, port, pid, kill()}` once it printed its
 * address. `port` 0 picks a free one; a taken port is retried until `bindRetryMs` passed.
 */
export async function startDemo({ port = 0, args = [], bindRetryMs = 10000 } = {}) {
  if (!existsSync(classes) || !existsSync(lib)) {
    throw new Error(`The demo server is not built (${classes}, ${lib} missing): run \`mvn -DskipTests -pl examples -am package\` in ${repo}`);
  }
  const deadline = Date.now() + bindRetryMs;
  for (;;) {
    try {
      return await startOnce(port, args);
    } catch (x) {
      if (!x.bindFailure || Date.now() > deadline) {
        throw x;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function startOnce(port, args) {
  // BAYEUX_JAVA_FLAGS: the JVM flags Netty needs (the build passes its bayeux.jvm.flags, as bin/jvm-flags gives the launchers).
  const flags = (process.env.BAYEUX_JAVA_FLAGS || '').split(/\s+/).filter((f) => f);
  const child = spawn(javaBinary(), [...flags, '-cp', `${classes}${path.delimiter}${lib}${path.sep}*`,
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', 'io.bayeux.examples.DemoServer', '--port', String(port), ...args],
  { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    live.delete(child);
    resolve({ code, signal });
  }));
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-8000); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The demo server did not start within ${STARTUP_TIMEOUT} ms:\n${stdout}\n${stderr}`));
    }, STARTUP_TIMEOUT);
    child.on('error', (x) => {
      clearTimeout(timer);
      reject(new Error(`Cannot run ${javaBinary()}: ${x.message} (set JAVA_HOME or BAYEUX_JAVA)`));
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      const match = /endpoint (http:\/\/[^ )]+)\)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        const url = match[1];
        const { origin, port: bound } = new URL(url);
        resolve({
          url, origin, port: Number(bound), pid: child.pid,
          /** Kills the JVM (SIGKILL: no goodbye to the clients) and waits for it to be gone. */
          kill: async () => {
            if (child.exitCode === null && child.signalCode === null) {
              process.kill(child.pid, 'SIGKILL');
            }
            await exited;
          },
        });
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      const hint = /UnsupportedClassVersionError/.test(stderr) ? ` ${javaBinary()} is too old: set BAYEUX_JAVA or JAVA_HOME to a JDK 21 or newer.` : '';
      const error = new Error(`The demo server exited (${code}) before starting.${hint}\n${stdout}\n${stderr}`);
      error.bindFailure = /Cannot bind|Address already in use/.test(stderr);
      reject(error);
    });
  });
}
