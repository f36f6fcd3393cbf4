// CometD's JavaScript client (npm "cometd", unmodified) in Debian's Chromium (driven by
// playwright-core, never a downloaded browser) against the demo server over WebSocket: the
// browser offers permessage-deflate itself, and the server accepts it.
import {describe, test, before, after} from "node:test";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import {readFile} from "node:fs/promises";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {chromium} from "playwright-core";
import {URL as ENDPOINT, WAIT} from "./support.mjs";

/** The browser: BAYEUX_CHROMIUM, else Debian's `chromium` package. */
const CHROMIUM = process.env.BAYEUX_CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** CometD's ES modules, served to the page by the test (not by the server) under /cometd-js/. */
const COMETD = path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules", "cometd");
const TEXT = "a line of chat that says the same thing again, ".repeat(50);

describe("CometD's JavaScript client in Chromium", {timeout: 60000}, () => {
    let browser;

    before(async () => {
        if (!existsSync(CHROMIUM)) {
            throw new Error(`Chromium is missing (${CHROMIUM}): install Debian's package (apt-get install -y chromium) or set BAYEUX_CHROMIUM`);
        }
        browser = await chromium.launch({executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: ARGS, timeout: 30000});
    });

    after(async () => {
        await browser?.close();
    });

    test("negotiates permessage-deflate natively and gets a large message whole", async () => {
        const origin = new URL(ENDPOINT).origin;
        const context = await browser.newContext();
        try {
            const page = await context.newPage();
            await page.route(`${origin}/cometd-js/*`, async route => {
                const file = path.basename(new URL(route.request().url()).pathname);
                await route.fulfill({contentType: "text/javascript", body: await readFile(path.join(COMETD, file))});
            });
            // Every WebSocket the page opens, to read what it negotiated.
            await page.addInitScript(() => {
                const Base = window.WebSocket;
                window.sockets = [];
                window.WebSocket = class extends Base {
                    constructor(...args) {
                        super(...args);
                        window.sockets.push(this);
                    }
                };
            });
            // A page of the server's own origin (its 404 page will do): Chromium lets a page served
            // from a loopback address open WebSockets to it; one the test made up would be refused.
            await page.goto(`${origin}/interop-blank-page`);
            const result = await page.evaluate(async ({endpoint, text, wait}) => {
                const within = (what, start) => new Promise((resolve, reject) => {
                    const timer = setTimeout(() => reject(new Error(`no ${what} within ${wait} ms`)), wait);
                    start(value => {
                        clearTimeout(timer);
                        resolve(value);
                    });
                });
                const {CometD} = await import("/cometd-js/cometd.js");
                const cometd = new CometD();
                for (const type of cometd.getTransportTypes()) {
                    if (type !== "websocket") {
                        cometd.unregisterTransport(type);
                    }
                }
                cometd.configure({url: endpoint, logLevel: "warn"});
                const handshake = await within("handshake reply", resolve => cometd.handshake(resolve));
                if (!handshake.successful) {
                    return {handshake: JSON.stringify(handshake)};
                }
                let delivered;
                const delivery = new Promise(resolve => {
                    delivered = resolve;
                });
                const subscribed = await within("subscribe reply", resolve => cometd.subscribe("/chat/browser", m => delivered(m.data), resolve));
                const published = await within("publish reply", resolve => cometd.publish("/chat/browser", {text}, resolve));
                const data = await within("delivery", resolve => delivery.then(resolve));
                const transport = cometd.getTransport()?.type;
                await within("disconnect reply", resolve => cometd.disconnect(resolve));
                return {handshake: handshake.successful, subscribed: subscribed.successful, published: published.successful,
                    data, transport, extensions: window.sockets.map(socket => socket.extensions)};
            }, {endpoint: ENDPOINT, text: TEXT, wait: WAIT});
            assert.equal(result.handshake, true, JSON.stringify(result));
            assert.equal(result.subscribed, true, JSON.stringify(result));
            assert.equal(result.published, true, JSON.stringify(result));
            assert.equal(result.transport, "websocket");
            assert.deepEqual(result.data, {text: TEXT});
            assert.ok(result.extensions.length > 0, "the page opened a WebSocket");
            assert.match(result.extensions[0], /^permessage-deflate; server_no_context_takeover; client_no_context_takeover/);
        } finally {
            await context.close();
        }
    });
});
