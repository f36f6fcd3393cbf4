// The official CometD JavaScript client (npm "cometd", in Node through "cometd-nodejs-client")
// against the demo server, over WebSocket and over long-polling.
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import {adapt} from "cometd-nodejs-client";
import {CometD} from "cometd";
import {URL, WAIT, within, Inbox, pause} from "./support.mjs";

adapt();

const TRANSPORTS = ["websocket", "long-polling"];

for (const transport of TRANSPORTS) {
    describe(`CometD JavaScript client over ${transport}`, {timeout: 60000}, () => {
        const clients = [];

        /** A CometD client that may only use `transport`. */
        function newClient(name) {
            const cometd = new CometD(name);
            for (const type of cometd.getTransportTypes()) {
                if (type !== transport) {
                    cometd.unregisterTransport(type);
                }
            }
            cometd.configure({url: URL, logLevel: "warn", maxNetworkDelay: WAIT});
            clients.push(cometd);
            return cometd;
        }

        async function connected(name, connects = new Inbox()) {
            const cometd = newClient(name);
            cometd.addListener("/meta/connect", m => connects.push(m));
            const reply = await within(`${name}'s handshake`, resolve => cometd.handshake(resolve));
            assert.equal(reply.successful, true, JSON.stringify(reply));
            assert.equal(cometd.getTransport().type, transport);
            const connect = await connects.next(`${name}'s first /meta/connect`);
            assert.equal(connect.successful, true, JSON.stringify(connect));
            return cometd;
        }

        function subscribe(cometd, channel, inbox) {
            return within(`subscription to ${channel}`, (resolve, reject) => {
                cometd.subscribe(channel, m => inbox.push(m), reply => reply.successful ? resolve(reply) : reject(new Error(JSON.stringify(reply))));
            });
        }

        function disconnect(cometd) {
            return within("disconnect", resolve => {
                if (cometd.isDisconnected()) {
                    resolve({successful: true});
                } else {
                    cometd.disconnect(resolve);
                }
            });
        }

        afterEach(async () => {
            await Promise.allSettled(clients.splice(0).map(disconnect));
        });

        test("subscribers of a channel and of its wildcard receive what is published", async () => {
            // Both clients share this process's cookie jar, so one BAYEUX_BROWSER cookie: whichever
            // of them has its connect held second is not held but advised to poll, which CometD
            // follows. That is nearly always bob, but alice's next connect may reach the server
            // after bob's (CometD sends it from a timer): either is right.
            const advised = new Inbox();
            const watched = name => {
                const connects = new Inbox();
                return {
                    push(m) {
                        connects.push(m);
                        if (m.advice && m.advice["multiple-clients"] === true) {
                            advised.push({name, message: m});
                        }
                    },
                    next: (what, match, ms) => connects.next(what, match, ms),
                };
            };
            const alice = await connected("alice", watched("alice"));
            const bob = await connected("bob", watched("bob"));
            if (transport === "long-polling") {
                const first = await advised.next("the multiple-clients advice to alice or bob");
                assert.equal(first.message.successful, true, JSON.stringify(first.message));
            }
            const aliceGot = new Inbox();
            const bobGot = new Inbox();
            await subscribe(alice, "/chat/js", aliceGot);
            await subscribe(bob, "/chat/*", bobGot);

            const published = await within("the publish reply", resolve => alice.publish("/chat/js", {text: "hello"}, resolve));
            assert.equal(published.successful, true, JSON.stringify(published));

            const toAlice = await aliceGot.next("alice's message");
            assert.equal(toAlice.channel, "/chat/js");
            assert.deepEqual(toAlice.data, {text: "hello"});
            const toBob = await bobGot.next("bob's message through /chat/*");
            assert.equal(toBob.channel, "/chat/js");
            assert.deepEqual(toBob.data, {text: "hello"});

            bob.publish("/chat/other", {text: "elsewhere"});
            const other = await bobGot.next("bob's message on /chat/other");
            assert.equal(other.channel, "/chat/other");
            await pause(200);
            assert.deepEqual(aliceGot.pending, [], "alice is not subscribed to /chat/other");
        });

        test("remote calls to the echo service resolve with the data", async () => {
            const cometd = await connected("caller");
            const clientId = cometd.getClientId();
            const failures = new Inbox();
            cometd.addListener("/meta/unsuccessful", m => failures.push(m));
            for (let i = 0; i < 3; ++i) {
                const data = {n: i, text: "ping"};
                const reply = await within("the remote call's result", resolve => cometd.remoteCall("echo", data, WAIT, resolve));
                assert.equal(reply.successful, true, JSON.stringify(reply));
                assert.equal(reply.channel, "/service/echo");
                assert.deepEqual(reply.data, data);
            }
            // The plain publish reply that also comes back neither failed anything nor dropped the session.
            assert.deepEqual(failures.pending, []);
            assert.equal(cometd.getClientId(), clientId);
            assert.equal(cometd.isDisconnected(), false);
        });

        test("a forgotten session makes the client handshake again and receive after resubscribing", async () => {
            const cometd = newClient("forgotten");
            const handshakes = new Inbox();
            const subscribed = new Inbox();
            const failedConnects = new Inbox();
            const received = new Inbox();
            // The usual application pattern: (re)subscribe whenever a handshake succeeds.
            cometd.addListener("/meta/handshake", m => {
                handshakes.push(m);
                if (m.successful) {
                    cometd.subscribe("/chat/*", msg => received.push(msg), reply => subscribed.push(reply));
                }
            });
            cometd.addListener("/meta/connect", m => {
                if (!m.successful) {
                    failedConnects.push(m);
                }
            });
            cometd.handshake();
            assert.equal((await handshakes.next("the first handshake")).successful, true);
            assert.equal((await subscribed.next("the first subscription")).successful, true);
            const oldId = cometd.getClientId();

            const forgetting = await within("the forget call", resolve => cometd.remoteCall("interop/forget", {}, WAIT, resolve));
            assert.equal(forgetting.successful, true, JSON.stringify(forgetting));

            const unknown = await failedConnects.next("the connect answered as unknown");
            assert.equal(unknown.error, "402::session_unknown");
            assert.equal(unknown.advice.reconnect, "handshake");
            const again = await handshakes.next("the second handshake");
            assert.equal(again.successful, true, JSON.stringify(again));
            assert.notEqual(cometd.getClientId(), oldId);
            assert.equal((await subscribed.next("the new subscription")).successful, true);

            cometd.publish("/chat/after", {text: "still here"});
            const message = await received.next("a message after the new handshake");
            assert.equal(message.channel, "/chat/after");
            assert.deepEqual(message.data, {text: "still here"});
        });

        test("disconnect ends the session", async () => {
            const cometd = await connected("leaver");
            const reply = await disconnect(cometd);
            assert.equal(reply.successful, true, JSON.stringify(reply));
            assert.equal(cometd.isDisconnected(), true);
            assert.equal(cometd.getStatus(), "disconnected");
        });
    });
}
