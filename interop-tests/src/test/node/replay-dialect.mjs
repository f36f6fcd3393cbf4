// Salesforce's Streaming API `replay` dialect (docs/history.md, "The replay dialect") as jsforce
// speaks it: Faye's Node client with a Replay extension written the way jsforce's
// StreamingExtension.Replay is, against the demo with history on (`/event/**` speak the dialect),
// over WebSocket and long-polling. Run by NodeReplayIT, which sets BAYEUX_URL and
// BAYEUX_HISTORY_SIZE (not a *.test.mjs file: NodeClientsIT's server has no history).
//
// No sleeps: "nothing else arrived" is proved by a fence, a live message published after the
// subscription, which the server queues after whatever the subscription replays.
import {describe, test, afterEach} from "node:test";
import assert from "node:assert/strict";
import faye from "faye";
import {URL, within, Inbox} from "./support.mjs";

const TRANSPORTS = ["websocket", "long-polling"];
const HISTORY_SIZE = Number(process.env.BAYEUX_HISTORY_SIZE);
/** Names this run's channels: the server keeps their history between runs. */
const RUN = Date.now().toString(36);
if (!(Number.isInteger(HISTORY_SIZE) && HISTORY_SIZE > 0)) {
    throw new Error("BAYEUX_HISTORY_SIZE is not set: run through NodeReplayIT");
}

/**
 * jsforce's StreamingExtension.Replay, for one channel: enabled when given a replay id (jsforce
 * passes it on as given, `-2`, `"-1"` or a stored `"123"`), or when the handshake reply says
 * `ext.replay: true`; adds `ext.replay: {[channel]: id}` to every subscribe (to any channel) and
 * takes each message's `data.event.replayId` on its channel as the id to resume from.
 * `handshake: true` also adds `ext.replay: true` to the handshake, as Salesforce's CometD
 * extensions do; jsforce itself sends nothing there (`handshake: false`).
 */
class Replay {
    constructor(channel, replayId, {handshake = true} = {}) {
        this._extensionEnabled = replayId != null;
        this._channel = channel;
        this._replay = replayId;
        this._handshake = handshake;
    }

    setReplay(replay) {
        this._replay = parseInt(replay, 10);
    }

    incoming(message, callback) {
        if (message.channel === "/meta/handshake") {
            if (message.ext && message.ext.replay == true) {
                this._extensionEnabled = true;
            }
        } else if (message.channel === this._channel && message.data && message.data.event && message.data.event.replayId) {
            this._replay = message.data.event.replayId;
        }
        callback(message);
    }

    outgoing(message, callback) {
        if (message.channel === "/meta/handshake" && this._handshake) {
            message.ext = message.ext || {};
            message.ext.replay = true;
        } else if (message.channel === "/meta/subscribe" && this._extensionEnabled) {
            message.ext = message.ext || {};
            message.ext.replay = {[this._channel]: this._replay};
        }
        callback(message);
    }
}

/** Faye's promises are thenables; this bounds one. */
function settled(what, thenable) {
    return within(what, (resolve, reject) => thenable.then(resolve, reject));
}

/** The message's data.event.replayId: a positive integer that JavaScript holds exactly. */
function replayIdOf(data) {
    const id = data && data.event && data.event.replayId;
    assert.ok(Number.isSafeInteger(id) && id > 0, `data.event.replayId is not a positive safe integer: ${JSON.stringify(data)}`);
    return id;
}

for (const transport of TRANSPORTS) {
    describe(`Faye with jsforce's Replay extension over ${transport}`, {timeout: 60000}, () => {
        const clients = [];
        let channels = 0;

        /** A channel of the replay dialect no other test (nor an earlier run on the same server) uses. */
        function eventChannel(name) {
            return `/event/${RUN}/${transport}/${name}-${++channels}`;
        }

        /**
         * A Faye client restricted to `transport` (and long-polling for its handshake), recording its
         * meta replies in `client.meta` and every other message it receives in `client.wire`.
         */
        function newClient(...extensions) {
            const client = new faye.Client(URL, {timeout: 30, retry: 1});
            client.disable("eventsource");
            client.disable("callback-polling");
            if (transport === "long-polling") {
                client.disable("websocket");
            }
            client.meta = new Inbox();
            client.wire = new Inbox();
            client.connectionTypes = new Set();
            client.addExtension({
                outgoing(message, callback) {
                    if (message.channel === "/meta/connect") {
                        client.connectionTypes.add(message.connectionType);
                    }
                    callback(message);
                },
                incoming(message, callback) {
                    if (message.channel.startsWith("/meta/")) {
                        client.meta.push(message);
                    } else if (message.data !== undefined) {
                        // Every message the server sent, whether Faye has a subscriber for it or not.
                        client.wire.push(message);
                    }
                    callback(message);
                }
            });
            for (const extension of extensions) {
                client.addExtension(extension);
            }
            clients.push(client);
            return client;
        }

        /**
         * A client subscribed to `channel`, as jsforce's `createClient([new Replay(channel, replayId)])`
         * makes it: `{client, replay, received}` (not the client itself: a Faye client is a
         * thenable, which an async function would wait on instead of returning).
         */
        async function subscriber(channel, replayId, options) {
            const replay = new Replay(channel, replayId, options);
            const client = newClient(replay);
            const received = new Inbox();
            await settled(`the subscription to ${channel} from ${JSON.stringify(replayId)}`,
                client.subscribe(channel, data => received.push(data)));
            return {client, replay, received};
        }

        /**
         * The client's connects went over `transport` in the end (over WebSocket, Faye handshakes
         * by long-polling and may send its first connects so while its socket opens).
         */
        function assertMovedTo(client) {
            const types = [...client.connectionTypes];
            assert.equal(types.at(-1), transport, JSON.stringify(types));
            assert.ok(types.every(t => t === transport || t === "long-polling"), JSON.stringify(types));
        }

        async function publishTexts(publisher, channel, prefix, from, to) {
            for (let i = from; i <= to; ++i) {
                await settled(`the publish of ${prefix}${i}`, publisher.publish(channel, {text: `${prefix}${i}`}));
            }
        }

        /** Receives on `sub` (from `subscriber`) `<prefix><from>..<prefix><to>` in order, replay ids increasing from above `after`; returns the ids. */
        async function receiveTexts(sub, prefix, from, to, after = 0) {
            const ids = [];
            let previous = after;
            for (let i = from; i <= to; ++i) {
                const data = await sub.received.next(`${prefix}${i}`);
                assert.equal(data.text, `${prefix}${i}`, JSON.stringify(data));
                const id = replayIdOf(data);
                assert.ok(id > previous, `replay id ${id} of ${prefix}${i} is not above ${previous}`);
                ids.push(id);
                previous = id;
            }
            return ids;
        }

        /** Publishes a live message and expects it next: nothing else was received before it. */
        async function fence(publisher, sub, channel, after) {
            await publishTexts(publisher, channel, "live", 1, 1);
            const [id] = await receiveTexts(sub, "live", 1, 1, after);
            assert.deepEqual(sub.received.pending, []);
            return id;
        }

        afterEach(async () => {
            await Promise.allSettled(clients.splice(0).map(client => {
                const disconnected = client.disconnect();
                return disconnected ? settled("disconnect", disconnected) : undefined;
            }));
        });

        test("the handshake reply echoes ext.replay: true", async () => {
            const {client} = await subscriber(eventChannel("hello"), -1);
            const handshake = await client.meta.next("the handshake reply", m => m.channel === "/meta/handshake");
            assert.equal(handshake.successful, true, JSON.stringify(handshake));
            assert.equal(handshake.ext && handshake.ext.replay, true, JSON.stringify(handshake));
        });

        test("'-1' (a string, as jsforce passes it on) delivers only what is published after the subscription", async () => {
            const channel = eventChannel("new");
            const publisher = newClient();
            await publishTexts(publisher, channel, "before", 1, 3);

            const sub = await subscriber(channel, "-1");
            await publishTexts(publisher, channel, "after", 1, 2);
            const ids = await receiveTexts(sub, "after", 1, 2);
            assert.deepEqual(sub.received.pending, []);
            assert.equal(sub.replay._replay, ids[1], "the extension remembers the last replay id");
        });

        for (const allRetained of [-2, "-2"]) {
            test(`${JSON.stringify(allRetained)} replays every retained message in order, then the new ones`, async () => {
                const channel = eventChannel("all");
                const published = Math.min(HISTORY_SIZE, 4);
                const publisher = newClient();
                await publishTexts(publisher, channel, "m", 1, published);

                const sub = await subscriber(channel, allRetained);
                const ids = await receiveTexts(sub, "m", 1, published);
                await fence(publisher, sub, channel, ids.at(-1));
                assertMovedTo(sub.client);
                assertMovedTo(publisher);
            });
        }

        test("a remembered replay id, as a number or as a string, resumes right after it without duplicates", async () => {
            const channel = eventChannel("resume");
            const published = Math.min(HISTORY_SIZE, 4);
            const publisher = newClient();
            const first = await subscriber(channel, -1);
            await publishTexts(publisher, channel, "m", 1, published);
            const ids = await receiveTexts(first, "m", 1, published);
            assert.equal(first.replay._replay, ids.at(-1));

            const resumed = [];
            for (const remembered of [ids[1], String(ids[1])]) {
                const sub = await subscriber(channel, remembered);
                assert.deepEqual(await receiveTexts(sub, "m", 3, published, ids[1]), ids.slice(2), "the same replay ids as delivered live");
                resumed.push(sub);
            }
            await publishTexts(publisher, channel, "live", 1, 1);
            for (const sub of resumed) {
                await receiveTexts(sub, "live", 1, 1, ids.at(-1));
                assert.deepEqual(sub.received.pending, []);
            }
        });

        test("a replay id the history no longer holds, or never held, fails the subscription with 400 and delivers nothing", async () => {
            const channel = eventChannel("trimmed");
            const fenceChannel = eventChannel("fence");
            const publisher = newClient();
            const witness = await subscriber(channel, -1);
            await publishTexts(publisher, channel, "m", 1, HISTORY_SIZE + 3);
            const ids = await receiveTexts(witness, "m", 1, HISTORY_SIZE + 3);

            for (const invalid of [ids[0], String(ids[0]), ids.at(-1) + 1000]) {
                const client = newClient(new Replay(channel, invalid));
                const received = new Inbox();
                await assert.rejects(settled(`the subscription from ${JSON.stringify(invalid)}`,
                    client.subscribe(channel, data => received.push(data))));
                const reply = await client.meta.next("the subscribe reply", m => m.channel === "/meta/subscribe");
                assert.equal(reply.successful, false, JSON.stringify(reply));
                assert.match(String(reply.error), /^400:/, JSON.stringify(reply));

                // jsforce's Replay names its channel with its id in every subscribe: the fence
                // channel's subscribe carries {[channel]: invalid} too, and must succeed.
                await settled("the fence subscription", client.subscribe(fenceChannel, data => received.push(data)));
                await publishTexts(publisher, channel, "ignored", 1, 1);
                await publishTexts(publisher, fenceChannel, "fence", 1, 1);
                const message = await client.wire.next("the fence");
                assert.equal(message.channel, fenceChannel, `the failed subscription delivered ${JSON.stringify(message)}`);
            }
        });

        test("jsforce's Replay, which says nothing in the handshake, still gets everything retained with -2", async () => {
            const channel = eventChannel("jsforce");
            const publisher = newClient();
            await publishTexts(publisher, channel, "m", 1, 2);

            const sub = await subscriber(channel, -2, {handshake: false});
            const ids = await receiveTexts(sub, "m", 1, 2);
            await fence(publisher, sub, channel, ids.at(-1));
        });

        // jsforce's Replay made without an id (`new Replay(channel)`, then `setReplay(id)`), like
        // Salesforce's CometD JavaScript replay extension, sends ext.replay on subscribes only once
        // a handshake reply said `ext.replay: true`, and sends nothing in the handshake: the server
        // announces it unasked, as Salesforce does.
        test("jsforce's Replay given its id by setReplay is enabled by the handshake reply alone", async () => {
            const channel = eventChannel("announced");
            const publisher = newClient();
            await publishTexts(publisher, channel, "m", 1, 2);

            const replay = new Replay(channel, undefined, {handshake: false});
            replay.setReplay("-2");
            const client = newClient(replay);
            const received = new Inbox();
            await settled("the subscription", client.subscribe(channel, data => received.push(data)));
            const handshake = await client.meta.next("the handshake reply", m => m.channel === "/meta/handshake");
            assert.equal(handshake.ext && handshake.ext.replay, true, `the handshake reply does not announce replay: ${JSON.stringify(handshake)}`);
            await receiveTexts({received}, "m", 1, 2);
        });

        test("the data the publisher sent keeps its fields beside event.replayId", async () => {
            const channel = eventChannel("data");
            const publisher = newClient();
            const sub = await subscriber(channel, -1);
            const sent = [{payload: {orderId: "A-17", amount: 42}}, {text: "hello", from: "publisher"}];
            let previous = 0;
            for (const data of sent) {
                await settled("the publish", publisher.publish(channel, data));
                const got = await sub.received.next(JSON.stringify(data));
                const id = replayIdOf(got);
                assert.ok(id > previous);
                previous = id;
                const {event, ...rest} = got;
                assert.deepEqual(rest, data, JSON.stringify(got));
            }
        });
    });
}
