// This project's JavaScript client (js-client/, npm "bayeux-client") in Node against CometD 8's
// own server, over WebSocket and over long-polling. Run by JsClientOnCometDServerIT, which starts
// the server and sets COMETD_URL; not matched by a bare `node --test` (the demo server's suite).
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import {WebSocket} from "ws";
import {BayeuxClient, CookieJar} from "../../../../js-client/src/index.js";
import {WAIT, within, Inbox, pause} from "./wait.mjs";

const URL = process.env.COMETD_URL;
if (!URL) {
    throw new Error("COMETD_URL is not set: run this through JsClientOnCometDServerIT, or set it to a CometD server's endpoint");
}

const TRANSPORTS = ["websocket", "long-polling"];

for (const transport of TRANSPORTS) {
    describe(`bayeux-client in Node against CometD 8 over ${transport}`, {timeout: 60000}, () => {
        const clients = [];

        /** A client that may only use `transport`, with its own cookie jar (as each browser has its own). */
        function newClient(options = {}) {
            const client = new BayeuxClient({url: URL, transports: [transport], logLevel: "warn", maxNetworkDelay: WAIT, WebSocket, ...options});
            const handshakes = new Inbox();
            const connects = new Inbox();
            client.addListener("/meta/handshake", m => handshakes.push(m));
            client.addListener("/meta/connect", m => connects.push(m));
            clients.push({client, handshakes, connects});
            return {client, handshakes, connects};
        }

        async function connected(options) {
            const made = newClient(options);
            made.client.handshake();
            const handshake = await made.handshakes.next("the handshake reply");
            assert.equal(handshake.successful, true, JSON.stringify(handshake));
            assert.equal(made.client.getTransport(), transport);
            const connect = await made.connects.next("the first /meta/connect reply");
            assert.equal(connect.successful, true, JSON.stringify(connect));
            return made;
        }

        function subscribe(client, channel, inbox) {
            return within(`the subscription to ${channel}`, (resolve, reject) => {
                client.subscribe(channel, m => inbox.push(m), reply => reply.successful ? resolve(reply) : reject(new Error(JSON.stringify(reply))));
            });
        }

        /** No second handshake and no failed connect happened: the session held all along. */
        function assertOneSession({client, handshakes, connects}) {
            assert.deepEqual(handshakes.pending, [], "no second handshake");
            assert.deepEqual(connects.pending.filter(m => !m.successful), [], "no failed /meta/connect");
            assert.equal(client.getStatus(), "connected");
        }

        afterEach(async () => {
            await Promise.allSettled(clients.splice(0).map(({client}) => within("disconnect", resolve => {
                if (client.isDisconnected()) {
                    resolve();
                } else {
                    client.disconnect(resolve);
                }
            })));
        });

        test("keeps CometD's browser cookie and its session: pub/sub and wildcards", async () => {
            const alice = await connected();
            const bob = await connected();
            const aliceGot = new Inbox();
            const bobGot = new Inbox();
            const deepGot = new Inbox();
            await subscribe(alice.client, "/chat/js", aliceGot);
            await subscribe(bob.client, "/chat/*", bobGot);
            await subscribe(bob.client, "/chat/**", deepGot);

            const published = await within("the publish reply", resolve => alice.client.publish("/chat/js", {text: "hello"}, resolve));
            assert.equal(published.successful, true, JSON.stringify(published));
            assert.deepEqual((await aliceGot.next("alice's message")).data, {text: "hello"});
            const toBob = await bobGot.next("bob's message through /chat/*");
            assert.equal(toBob.channel, "/chat/js");
            assert.deepEqual(toBob.data, {text: "hello"});
            assert.equal((await deepGot.next("bob's message through /chat/**")).channel, "/chat/js");

            bob.client.publish("/chat/room/deep", {text: "deeper"});
            assert.equal((await deepGot.next("/chat/room/deep through /chat/**")).channel, "/chat/room/deep");
            await pause(300);
            assert.deepEqual(bobGot.pending, [], "/chat/* does not match /chat/room/deep");
            assert.deepEqual(aliceGot.pending, [], "alice is not subscribed to /chat/room/deep");

            // Through a full long-poll cycle (the IT's server holds connects 2 s), the sessions
            // still hold: without the cookie, every connect would be refused.
            await pause(2500);
            assertOneSession(alice);
            assertOneSession(bob);
        });

        test("remoteCall gets the echo service's result", async () => {
            const caller = await connected();
            for (let i = 0; i < 3; i++) {
                const data = {n: i, text: "ping"};
                const reply = await within("the remote call's result", resolve => caller.client.remoteCall("echo", data, WAIT, resolve));
                assert.equal(reply.successful, true, JSON.stringify(reply));
                assert.deepEqual(reply.data, data);
            }
            assertOneSession(caller);
        });

        test("a batch goes out together and every message in it is answered", async () => {
            const alice = await connected();
            const got = new Inbox();
            await subscribe(alice.client, "/chat/batch", got);
            const replies = new Inbox();
            alice.client.batch(() => {
                alice.client.publish("/chat/batch", "one", r => replies.push(r));
                alice.client.publish("/chat/batch", "two", r => replies.push(r));
                alice.client.remoteCall("echo", "three", WAIT, r => replies.push(r));
            });
            for (let i = 0; i < 3; i++) {
                const reply = await replies.next(`reply ${i + 1} of the batch`);
                assert.equal(reply.successful, true, JSON.stringify(reply));
            }
            assert.equal((await got.next("the first message")).data, "one");
            assert.equal((await got.next("the second message")).data, "two");
            assertOneSession(alice);
        });

        test("100 messages arrive in the order they were published", async () => {
            const alice = await connected();
            const bob = await connected();
            const got = new Inbox();
            await subscribe(bob.client, "/chat/order", got);
            for (let i = 0; i < 100; i++) {
                alice.client.publish("/chat/order", {i});
            }
            for (let i = 0; i < 100; i++) {
                assert.deepEqual((await got.next(`message ${i}`)).data, {i});
            }
            assertOneSession(alice);
            assertOneSession(bob);
        });

        test("disconnect ends the session", async () => {
            const leaver = await connected();
            const reply = await within("the disconnect reply", resolve => leaver.client.disconnect(resolve));
            assert.equal(reply.successful, true, JSON.stringify(reply));
            assert.equal(leaver.client.isDisconnected(), true);
        });

        if (transport === "long-polling") {
            test("without its cookie jar the session is refused after the handshake, as the cookie jar prevents", async () => {
                const made = newClient({cookieJar: null, backoffIncrement: 100});
                made.client.handshake();
                assert.equal((await made.handshakes.next("the handshake reply")).successful, true);
                const refused = await made.connects.next("the connect reply");
                assert.equal(refused.successful, false, JSON.stringify(refused));
                assert.match(refused.error, /^402::/);
                made.client.abort();
            });

            test("the jar holds CometD's BAYEUX_BROWSER cookie, shared by clients given the same jar", async () => {
                const cookieJar = new CookieJar();
                const first = await connected({cookieJar});
                assert.ok(cookieJar.cookies().some(c => c.name === "BAYEUX_BROWSER"), JSON.stringify(cookieJar.cookies()));
                assert.match(cookieJar.header(URL), /BAYEUX_BROWSER=/);
                assertOneSession(first);
            });
        }
    });
}
