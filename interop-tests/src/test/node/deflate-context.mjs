// permessage-deflate with a compression context per connection: the demo server started with
// --websocket-compression-context (BAYEUX_CONTEXT_URL, set by DeflateContextIT) answers the
// offers of ws (which do not ask for server_no_context_takeover) without
// server_no_context_takeover, and compresses each connection's messages with the messages before
// them. This project's JavaScript client and CometD's, both on ws, and CometD's in Debian's
// Chromium (its own inflater) take a stream of small chat messages that only inflate with the
// client's kept context. Not matched by a bare `node --test`.
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import {WebSocket} from "ws";
import {adapt} from "cometd-nodejs-client";
import {CometD} from "cometd";
import {BayeuxClient} from "../../../../js-client/src/index.js";
import {cometdPage, launchChromium} from "./browser.mjs";
import {within, Inbox, WAIT} from "./wait.mjs";

const URL = process.env.BAYEUX_CONTEXT_URL;
if (!URL) {
    throw new Error("BAYEUX_CONTEXT_URL is not set: run this through DeflateContextIT");
}
const MESSAGES = 30;

adapt();

/** ws's WebSocket, recording each socket made. */
function recordingWebSocket(Base, sockets) {
    return class extends Base {
        constructor(...args) {
            super(...args);
            sockets.push(this);
        }
    };
}

/** Chat text of about 50 characters, different for each i. */
function chat(i) {
    return `see you at lunch tomorrow, the meeting is fixed, message ${i}`;
}

/** The extension the server answered a socket with: with context on the server's side, no server_no_context_takeover. */
function assertContextKept(socket) {
    assert.match(socket.extensions, /^permessage-deflate/, socket.extensions);
    assert.doesNotMatch(socket.extensions, /server_no_context_takeover/, socket.extensions);
}

describe("permessage-deflate with a context per connection", {timeout: 60000}, () => {
    const cleanups = [];

    afterEach(async () => {
        await Promise.allSettled(cleanups.splice(0).map(cleanup => cleanup()));
    });

    test("this project's client on ws inflates a stream of messages with its context", async () => {
        const sockets = [];
        const client = new BayeuxClient({url: URL, transports: ["websocket"], logLevel: "warn",
            WebSocket: recordingWebSocket(WebSocket, sockets)});
        cleanups.push(() => within("disconnect", resolve => client.disconnect(resolve)));
        const handshake = await within("the handshake", resolve => {
            client.addListener("/meta/handshake", resolve);
            client.handshake();
        });
        assert.equal(handshake.successful, true, JSON.stringify(handshake));
        const inbox = new Inbox();
        await within("the subscription", (resolve, reject) => client.subscribe("/chat/context", m => inbox.push(m.data),
            r => r.successful ? resolve(r) : reject(new Error(JSON.stringify(r)))));
        for (let i = 0; i < MESSAGES; i++) {
            client.publish("/chat/context", {text: chat(i)});
            assert.deepEqual(await inbox.next(`message ${i}`), {text: chat(i)});
        }
        assert.ok(sockets.length > 0, "a WebSocket was opened");
        assertContextKept(sockets.at(-1));
    });

    test("the CometD JavaScript client on ws inflates a stream of messages with its context", async () => {
        const sockets = [];
        const Base = globalThis.window.WebSocket;
        globalThis.window.WebSocket = recordingWebSocket(Base, sockets);
        cleanups.push(() => {
            globalThis.window.WebSocket = Base;
        });
        const cometd = new CometD("context");
        for (const type of cometd.getTransportTypes()) {
            if (type !== "websocket") {
                cometd.unregisterTransport(type);
            }
        }
        cometd.configure({url: URL, logLevel: "warn"});
        cleanups.push(() => within("disconnect", resolve => cometd.disconnect(resolve)));
        const reply = await within("the handshake", resolve => cometd.handshake(resolve));
        assert.equal(reply.successful, true, JSON.stringify(reply));
        const inbox = new Inbox();
        await within("the subscription", (resolve, reject) => cometd.subscribe("/chat/context", m => inbox.push(m.data),
            r => r.successful ? resolve(r) : reject(new Error(JSON.stringify(r)))));
        for (let i = 0; i < MESSAGES; i++) {
            cometd.publish("/chat/context", {text: chat(i)});
            assert.deepEqual(await inbox.next(`message ${i}`), {text: chat(i)});
        }
        assert.ok(sockets.length > 0, "a WebSocket was opened");
        assertContextKept(sockets.at(-1));
    });

    test("the CometD JavaScript client in Chromium inflates a stream of messages with its context", async () => {
        const browser = await launchChromium();
        cleanups.push(() => browser.close());
        const page = await cometdPage(browser, URL);
        const texts = Array.from({length: MESSAGES}, (_, i) => chat(i));
        const result = await page.evaluate(async ({endpoint, texts, wait}) => {
            const within = (what, start) => window.within(what, wait, start);
            const cometd = await window.cometdOnWebSocket(endpoint);
            const handshake = await within("handshake reply", resolve => cometd.handshake(resolve));
            const received = [];
            let next = () => {};
            await within("subscribe reply", resolve => cometd.subscribe("/chat/context", m => {
                received.push(m.data.text);
                next();
            }, resolve));
            for (const text of texts) {
                const arrived = new Promise(resolve => {
                    next = resolve;
                });
                cometd.publish("/chat/context", {text});
                await within(`the delivery of "${text}"`, resolve => arrived.then(resolve));
            }
            await within("disconnect reply", resolve => cometd.disconnect(resolve));
            return {handshake: handshake.successful, received, extensions: window.sockets.map(socket => socket.extensions)};
        }, {endpoint: URL, texts, wait: WAIT});
        assert.equal(result.handshake, true, JSON.stringify(result));
        assert.deepEqual(result.received, texts);
        assert.ok(result.extensions.length > 0, "the page opened a WebSocket");
        assertContextKept({extensions: result.extensions.at(-1)});
    });
});
