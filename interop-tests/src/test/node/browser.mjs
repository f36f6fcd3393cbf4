// Debian's Chromium, driven by playwright-core (never a downloaded browser), with a page that can
// load CometD's JavaScript client and open WebSockets to a server under test.
import {existsSync} from "node:fs";
import {readFile} from "node:fs/promises";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {chromium} from "playwright-core";

/** The browser: BAYEUX_CHROMIUM, else Debian's `chromium` package. */
const CHROMIUM = process.env.BAYEUX_CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** CometD's ES modules, served to the page by the test (not by the server) under /cometd-js/. */
const COMETD = path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules", "cometd");

/** Starts the browser; fails, saying how to get one, when it is missing. */
export async function launchChromium() {
    if (!existsSync(CHROMIUM)) {
        throw new Error(`Chromium is missing (${CHROMIUM}): install Debian's package (apt-get install -y chromium) or set BAYEUX_CHROMIUM`);
    }
    return chromium.launch({executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: ARGS, timeout: 30000});
}

/**
 * A page of `endpoint`'s origin (its 404 page will do: Chromium lets a page served from a
 * loopback address open WebSockets to it; one the test made up would be refused), where
 * `import("/cometd-js/cometd.js")` loads CometD's client, `await cometdOnWebSocket(endpoint)`
 * makes one that uses WebSocket only, `within(what, wait, start)` waits for a callback, and
 * `window.sockets` lists every WebSocket the page opens, to read what each negotiated.
 */
export async function cometdPage(context, endpoint) {
    const origin = new URL(endpoint).origin;
    const page = await context.newPage();
    await page.route(`${origin}/cometd-js/*`, async route => {
        const file = path.basename(new URL(route.request().url()).pathname);
        await route.fulfill({contentType: "text/javascript", body: await readFile(path.join(COMETD, file))});
    });
    await page.addInitScript(() => {
        const Base = window.WebSocket;
        window.sockets = [];
        window.WebSocket = class extends Base {
            constructor(...args) {
                super(...args);
                window.sockets.push(this);
            }
        };
        // What `start` passes its callback, or a failure naming `what` after `wait` ms.
        window.within = (what, wait, start) => new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no ${what} within ${wait} ms`)), wait);
            start(value => {
                clearTimeout(timer);
                resolve(value);
            });
        });
        // CometD's client for `endpoint`, on WebSocket only.
        window.cometdOnWebSocket = async endpoint => {
            const {CometD} = await import("/cometd-js/cometd.js");
            const cometd = new CometD();
            for (const type of cometd.getTransportTypes()) {
                if (type !== "websocket") {
                    cometd.unregisterTransport(type);
                }
            }
            cometd.configure({url: endpoint, logLevel: "warn"});
            return cometd;
        };
    });
    await page.goto(`${origin}/interop-blank-page`);
    return page;
}
