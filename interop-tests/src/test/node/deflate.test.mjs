// permessage-deflate between the demo server (which accepts it by default, with no context
// takeover either way) and the Node clients that offer it: Faye with the permessage-deflate
// extension, and the CometD JavaScript client on "ws" (through cometd-nodejs-client), which
// offers it by default. A message large enough to be compressed goes both ways.
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import faye from "faye";
import deflate from "permessage-deflate";
import {adapt} from "cometd-nodejs-client";
import {CometD} from "cometd";
import {URL, WAIT, within, Inbox, fayeClient} from "./support.mjs";

adapt();

// Over 1 KiB: "ws" compresses only messages of 1,024 bytes and more.
const TEXT = "a line of chat that says the same thing again, ".repeat(50);

/** Faye's promises are thenables; this bounds one. */
function settled(what, thenable) {
    return within(what, (resolve, reject) => thenable.then(resolve, reject));
}

describe("permessage-deflate with the demo server", {timeout: 60000}, () => {
    const cleanups = [];

    afterEach(async () => {
        await Promise.allSettled(cleanups.splice(0).map(cleanup => cleanup()));
    });

    test("Faye with the permessage-deflate extension negotiates it, without context takeover", async () => {
        // The extension, recording the parameters the server answered with.
        const negotiated = [];
        const recording = Object.create(deflate, {
            createClientSession: {
                value() {
                    const session = deflate.createClientSession();
                    const activate = session.activate.bind(session);
                    session.activate = params => {
                        negotiated.push(params);
                        return activate(params);
                    };
                    return session;
                }
            }
        });
        const client = fayeClient(faye, "websocket");
        client.addWebsocketExtension(recording);
        cleanups.push(() => settled("disconnect", client.disconnect()));
        const inbox = new Inbox();
        await settled("the subscription", client.subscribe("/chat/deflate", data => inbox.push(data)));
        await settled("the publish reply", client.publish("/chat/deflate", {text: TEXT}));
        assert.deepEqual(await inbox.next("the large message"), {text: TEXT});
        assert.ok(negotiated.length > 0, "permessage-deflate was negotiated");
        assert.equal(negotiated[0].server_no_context_takeover, true, JSON.stringify(negotiated));
        assert.equal(negotiated[0].client_no_context_takeover, true, JSON.stringify(negotiated));
    });

    test("the CometD JavaScript client on ws negotiates it by default", async () => {
        const sockets = [];
        // cometd-nodejs-client's adapt() gives CometD ws's WebSocket as window.WebSocket.
        const Base = globalThis.window.WebSocket;
        globalThis.window.WebSocket = class extends Base {
            constructor(...args) {
                super(...args);
                sockets.push(this);
            }
        };
        cleanups.push(() => {
            globalThis.window.WebSocket = Base;
        });
        const cometd = new CometD("deflate");
        for (const type of cometd.getTransportTypes()) {
            if (type !== "websocket") {
                cometd.unregisterTransport(type);
            }
        }
        cometd.configure({url: URL, logLevel: "warn", maxNetworkDelay: WAIT});
        cleanups.push(() => within("disconnect", resolve => cometd.disconnect(resolve)));
        const reply = await within("the handshake", resolve => cometd.handshake(resolve));
        assert.equal(reply.successful, true, JSON.stringify(reply));
        const inbox = new Inbox();
        await within("the subscription", (resolve, reject) => cometd.subscribe("/chat/deflate", m => inbox.push(m.data),
            r => r.successful ? resolve(r) : reject(new Error(JSON.stringify(r)))));
        const published = await within("the publish reply", resolve => cometd.publish("/chat/deflate", {text: TEXT}, resolve));
        assert.equal(published.successful, true, JSON.stringify(published));
        assert.deepEqual(await inbox.next("the large message"), {text: TEXT});
        assert.ok(sockets.length > 0, "a WebSocket was opened");
        assert.equal(sockets.at(-1).extensions, "permessage-deflate");
    });
});
