// This project's JavaScript client (js-client/, npm "bayeux-client") in Node against the demo
// server, over WebSocket and over long-polling: the server binds a session to its browser
// cookie, which the client keeps in its cookie jar (Node has no browser cookie store).
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import {WebSocket} from "ws";
import {BayeuxClient} from "../../../../js-client/src/index.js";
import {URL, WAIT, within, Inbox} from "./support.mjs";

for (const transport of ["websocket", "long-polling"]) {
    describe(`bayeux-client in Node over ${transport}`, {timeout: 60000}, () => {
        const clients = [];

        async function connected() {
            const client = new BayeuxClient({url: URL, transports: [transport], logLevel: "warn", maxNetworkDelay: WAIT, WebSocket});
            const handshakes = new Inbox();
            const connects = new Inbox();
            client.addListener("/meta/handshake", m => handshakes.push(m));
            client.addListener("/meta/connect", m => connects.push(m));
            clients.push(client);
            client.handshake();
            assert.equal((await handshakes.next("the handshake reply")).successful, true);
            const connect = await connects.next("the first /meta/connect reply");
            assert.equal(connect.successful, true, JSON.stringify(connect));
            assert.equal(client.getTransport(), transport);
            return {client, handshakes, connects};
        }

        afterEach(async () => {
            await Promise.allSettled(clients.splice(0).map(client => within("disconnect", resolve => {
                if (client.isDisconnected()) {
                    resolve();
                } else {
                    client.disconnect(resolve);
                }
            })));
        });

        test("one session carries pub/sub, wildcards and a remote call", async () => {
            const alice = await connected();
            const bob = await connected();
            const got = new Inbox();
            await within("the subscription", (resolve, reject) => bob.client.subscribe("/chat/*", m => got.push(m),
                r => r.successful ? resolve(r) : reject(new Error(JSON.stringify(r)))));
            const published = await within("the publish reply", resolve => alice.client.publish("/chat/node", {text: "hi"}, resolve));
            assert.equal(published.successful, true, JSON.stringify(published));
            const message = await got.next("bob's message");
            assert.equal(message.channel, "/chat/node");
            assert.deepEqual(message.data, {text: "hi"});
            const echo = await within("the remote call", resolve => alice.client.remoteCall("echo", {n: 7}, WAIT, resolve));
            assert.equal(echo.successful, true, JSON.stringify(echo));
            assert.deepEqual(echo.data, {n: 7});
            for (const c of [alice, bob]) {
                assert.deepEqual(c.handshakes.pending, [], "no second handshake");
                assert.deepEqual(c.connects.pending.filter(m => !m.successful), [], "no failed /meta/connect");
            }
            const bye = await within("the disconnect reply", resolve => alice.client.disconnect(resolve));
            assert.equal(bye.successful, true, JSON.stringify(bye));
        });
    });
}
