// CometD's JavaScript client (npm "cometd", unmodified) in Debian's Chromium (driven by
// playwright-core, never a downloaded browser) against the demo server over WebSocket: the
// browser offers permessage-deflate itself, and the server accepts it.
import {describe, test, before, after} from "node:test";
import assert from "node:assert/strict";
import {cometdPage, launchChromium} from "./browser.mjs";
import {URL as ENDPOINT, WAIT} from "./support.mjs";

const TEXT = "a line of chat that says the same thing again, ".repeat(50);

describe("CometD's JavaScript client in Chromium", {timeout: 60000}, () => {
    let browser;

    before(async () => {
        browser = await launchChromium();
    });

    after(async () => {
        await browser?.close();
    });

    test("negotiates permessage-deflate natively and gets a large message whole", async () => {
        const context = await browser.newContext();
        try {
            const page = await cometdPage(context, ENDPOINT);
            const result = await page.evaluate(async ({endpoint, text, wait}) => {
                const within = (what, start) => window.within(what, wait, start);
                const cometd = await window.cometdOnWebSocket(endpoint);
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
