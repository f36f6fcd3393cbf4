// Faye's Node client (npm "faye") against the demo server, over WebSocket and over long-polling.
// Faye handshakes over HTTP and then moves the session to its best transport, so "websocket"
// here means: handshake by long-polling, every later message over one WebSocket.
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import faye from "faye";
import {within, Inbox, pause, fayeClient} from "./support.mjs";

const TRANSPORTS = ["websocket", "long-polling"];

/**
 * The client's connects went over `transport` in the end. Over WebSocket, Faye may send its first
 * connects by long-polling while the socket it opened with its handshake is not open yet (a busy
 * machine), then moves to the socket.
 */
function assertMovedTo(client, transport) {
    const types = [...client.connectionTypes];
    assert.equal(types.at(-1), transport, JSON.stringify(types));
    assert.ok(types.every(t => t === transport || t === "long-polling"), JSON.stringify(types));
}

/** Faye's promises are thenables; this bounds one. */
function settled(what, thenable) {
    return within(what, (resolve, reject) => thenable.then(resolve, reject));
}

for (const transport of TRANSPORTS) {
    describe(`Faye Node client over ${transport}`, {timeout: 60000}, () => {
        const clients = [];

        function newClient() {
            const client = fayeClient(faye, transport);
            clients.push(client);
            return client;
        }

        async function subscribe(client, channel, inbox) {
            const subscription = client.subscribe(channel, data => inbox.push(data));
            await settled(`the subscription to ${channel}`, subscription);
            return subscription;
        }

        afterEach(async () => {
            await Promise.allSettled(clients.splice(0).map(client => {
                const disconnected = client.disconnect();
                return disconnected ? settled("disconnect", disconnected) : undefined;
            }));
        });

        test("subscribers of a channel and of its wildcard receive what is published", async () => {
            const alice = newClient();
            const bob = newClient();
            const aliceGot = new Inbox();
            const bobGot = new Inbox();
            await subscribe(alice, "/chat/faye", aliceGot);
            await subscribe(bob, "/chat/*", bobGot);

            await settled("the publish reply", alice.publish("/chat/faye", {text: "hello"}));
            assert.deepEqual(await aliceGot.next("alice's message"), {text: "hello"});
            assert.deepEqual(await bobGot.next("bob's message through /chat/*"), {text: "hello"});

            await settled("the other publish reply", bob.publish("/chat/other", {text: "elsewhere"}));
            assert.deepEqual(await bobGot.next("bob's message on /chat/other"), {text: "elsewhere"});
            await pause(200);
            assert.deepEqual(aliceGot.pending, [], "alice is not subscribed to /chat/other");
            for (const client of [alice, bob]) {
                assertMovedTo(client, transport);
            }
        });

        test("a publish to the echo service is answered to the sender on the service channel", async () => {
            const client = newClient();
            const replies = new Inbox();
            // Faye hands received messages to the subscribers of their channel; the service
            // channel's subscription is accepted (it carries no broadcasts) and gets the reply.
            await subscribe(client, "/service/echo", replies);
            for (let i = 0; i < 3; ++i) {
                const data = {n: i, text: "ping"};
                await settled("the publish reply", client.publish("/service/echo", data));
                assert.deepEqual(await replies.next("the echo"), data);
            }
            assertMovedTo(client, transport);
        });

        test("a forgotten session makes the client handshake again and resubscribe by itself", async () => {
            const client = newClient();
            const received = new Inbox();
            await subscribe(client, "/chat/*", received);
            const first = await client.meta.next("the first handshake", m => m.channel === "/meta/handshake");
            assert.equal(first.successful, true);

            await settled("the forget publish", client.publish("/service/interop/forget", {}));

            const unknown = await client.meta.next("the connect answered as unknown", m => m.channel === "/meta/connect" && !m.successful);
            assert.equal(unknown.error, "402::session_unknown");
            assert.equal(unknown.advice.reconnect, "handshake");
            const again = await client.meta.next("the second handshake", m => m.channel === "/meta/handshake");
            assert.equal(again.successful, true, JSON.stringify(again));
            assert.notEqual(again.clientId, first.clientId);
            // Faye subscribes its channels again after a new handshake.
            const resubscribed = await client.meta.next("the resubscription", m => m.channel === "/meta/subscribe");
            assert.equal(resubscribed.successful, true, JSON.stringify(resubscribed));

            await settled("the publish reply", client.publish("/chat/after", {text: "still here"}));
            assert.deepEqual(await received.next("a message after the new handshake"), {text: "still here"});
        });

        test("disconnect ends the session", async () => {
            const client = newClient();
            await subscribe(client, "/chat/bye", new Inbox());
            await settled("disconnect", client.disconnect());
            const reply = await client.meta.next("the disconnect reply", m => m.channel === "/meta/disconnect");
            assert.equal(reply.successful, true);
            clients.splice(clients.indexOf(client), 1);
        });
    });
}
