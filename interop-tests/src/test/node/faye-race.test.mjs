// Faye's Node client moves its session from the long-polling handshake to a WebSocket it opened
// alongside that handshake, without a cookie. Whichever order the handshake reply, the 101 and the
// first connect arrive in, the server must let it: here a TCP proxy holds one of them back until
// another has passed, for each interleaving; then hundreds of Faye clients handshake over
// WebSocket while two processes keep every core busy. No meta reply may be refused.
import {describe, test, before, after, afterEach} from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import {spawn} from "node:child_process";
import faye from "faye";
import {URL as SERVER_URL, within, Inbox} from "./support.mjs";

/** A gate: `open()` lets what waits on `opened` through. */
class Gate {
    constructor() {
        this.opened = new Promise(resolve => this.open = resolve);
    }
}

/**
 * A TCP proxy in front of the server. Each connection is connected upstream at once (as a
 * layer-4 proxy or a load balancer does), so the server accepts it when the client opens it;
 * what goes through may then be held back. The proxy tells apart the WebSocket connection (its
 * first bytes are an upgrade) and the HTTP ones, and fires events when a handshake reply, a
 * connect reply or a 101 has gone through to the client.
 */
class HoldingProxy {
    /** Gates that hold: `upgrade` (the upgrade request), `handshakeReply`, `firstConnect` (the first connect request), `switching` (the 101). */
    holds = {};
    /** Open when the handshake reply, a connect reply, the 101 went through. */
    passed = {handshakeReply: new Gate(), connectReply: new Gate(), switching: new Gate()};
    #server;
    #sockets = new Set();
    #connectSeen = false;

    constructor(target) {
        this.target = target;
    }

    async listen() {
        this.#server = net.createServer(client => this.#accept(client));
        await new Promise(resolve => this.#server.listen(0, "127.0.0.1", resolve));
        const url = new globalThis.URL(this.target.href);
        url.port = String(this.#server.address().port);
        return url.href;
    }

    #accept(client) {
        const upstream = net.connect(Number(this.target.port), this.target.hostname);
        this.#sockets.add(client).add(upstream);
        let kind;            // "websocket" or "http", from the first bytes
        let pendingReply;    // what the HTTP request on its way asks: "handshake", "connect" or undefined
        let toServer = Promise.resolve();
        let toClient = Promise.resolve();
        const close = () => {
            client.destroy();
            upstream.destroy();
        };
        client.on("error", close).on("close", close);
        upstream.on("error", close).on("close", close);

        client.on("data", chunk => {
            const text = chunk.toString("latin1");
            kind ??= /^GET [^\r\n]*\r\n/.test(text) && /upgrade: websocket/i.test(text) ? "websocket" : "http";
            let hold;
            if (kind === "websocket" && text.startsWith("GET ")) {
                hold = this.holds.upgrade;
            } else if (kind === "http" && text.includes("/meta/handshake")) {
                pendingReply = "handshake";
            } else if (kind === "http" && text.includes("/meta/connect")) {
                pendingReply = "connect";
                if (!this.#connectSeen) {
                    this.#connectSeen = true;
                    hold = this.holds.firstConnect;
                }
            }
            toServer = toServer.then(() => hold?.opened).then(() => upstream.write(chunk));
        });
        upstream.on("data", chunk => {
            const text = chunk.toString("latin1");
            let hold;
            let passes;
            if (kind === "websocket" && text.startsWith("HTTP/1.1 101")) {
                hold = this.holds.switching;
                passes = this.passed.switching;
            } else if (kind === "http" && pendingReply === "handshake") {
                hold = this.holds.handshakeReply;
                passes = text.includes("/meta/handshake") ? this.passed.handshakeReply : undefined;
            } else if (kind === "http" && pendingReply === "connect" && text.includes("/meta/connect")) {
                passes = this.passed.connectReply;
            }
            toClient = toClient.then(() => hold?.opened).then(() => {
                client.write(chunk);
                passes?.open();
            });
        });
    }

    async close() {
        for (const socket of this.#sockets) {
            socket.destroy();
        }
        await new Promise(resolve => this.#server.close(resolve));
    }
}

/**
 * A Faye client of `url` over `transport`, recording in `client.refusals` every meta reply that
 * was not successful, and resolving `client.onSocket` once it sends its connects over the
 * WebSocket (a connect there is held until the server's timeout, so its reply comes late; what
 * the client publishes next goes over the socket too, and is refused if the session is).
 */
function raceClient(url, transport) {
    const client = new faye.Client(url, {timeout: 30, retry: 1});
    client.disable("eventsource");
    client.disable("callback-polling");
    if (transport === "long-polling") {
        client.disable("websocket");
    }
    client.refusals = [];
    client.connectionTypes = [];
    let onSocket;
    client.onSocket = new Promise(resolve => onSocket = resolve);
    client.addExtension({
        outgoing(message, callback) {
            if (message.channel === "/meta/connect") {
                client.connectionTypes.push(message.connectionType);
                if (message.connectionType === "websocket") {
                    onSocket();
                }
            }
            callback(message);
        },
        incoming(message, callback) {
            if (message.channel.startsWith("/meta/") && message.successful === false) {
                client.refusals.push(message);
            }
            callback(message);
        }
    });
    return client;
}

function settled(what, thenable, ms) {
    return within(what, (resolve, reject) => thenable.then(resolve, reject), ms);
}

/**
 * Subscribes, then publishes and receives until the session has moved to the WebSocket (over
 * WebSocket) or once (over long-polling): each message ends the connect the server holds, after
 * which Faye sends its next connect over the socket once that is open. Then once more, over the
 * socket: a session the socket may not use would refuse that publish.
 */
async function roundTrips(client, transport, channel) {
    try {
        await roundTripsOf(client, transport, channel);
    } catch (error) {
        throw new Error(`${error.message}; meta refusals ${JSON.stringify(client.refusals)}; connects over ${client.connectionTypes}`, {cause: error});
    }
}

async function roundTripsOf(client, transport, channel) {
    const inbox = new Inbox();
    await settled(`the subscription to ${channel}`, client.subscribe(channel, data => inbox.push(data)), 30000);
    let moved = transport !== "websocket";
    client.onSocket.then(() => moved = true);
    for (let n = 0; n < 100 && !moved; n++) {
        await settled("a publish reply", client.publish(channel, {n}), 30000);
        assert.deepEqual(await inbox.next(`message ${n}`, () => true, 30000), {n});
    }
    assert.ok(moved, `the session moved to the WebSocket: its connects went over ${client.connectionTypes}`);
    await settled("the last publish reply", client.publish(channel, {text: "through"}), 30000);
    assert.deepEqual(await inbox.next("the last message", () => true, 30000), {text: "through"});
    assert.deepEqual(client.refusals, [], "no meta reply refused");
}

/**
 * Each interleaving: what is held back, and until what has passed. Over long-polling there is no
 * socket, so what would wait for the 101 waits for nothing.
 */
const INTERLEAVINGS = {
    "the upgrade is read after the first connect was answered": (proxy) => {
        proxy.holds.upgrade = proxy.passed.connectReply;
    },
    "the handshake reply arrives after the 101": (proxy, transport) => {
        proxy.holds.handshakeReply = transport === "websocket" ? proxy.passed.switching : undefined;
    },
    "the 101 arrives after the handshake reply": (proxy) => {
        proxy.holds.switching = proxy.passed.handshakeReply;
    },
    "the 101 arrives after the first connect was answered": (proxy) => {
        proxy.holds.switching = proxy.passed.connectReply;
    },
    "the first connect is sent after the 101 arrived": (proxy, transport) => {
        proxy.holds.switching = proxy.passed.handshakeReply;
        proxy.holds.firstConnect = transport === "websocket" ? proxy.passed.switching : undefined;
    },
};

for (const transport of ["websocket", "long-polling"]) {
    describe(`Faye over ${transport}, its messages held back in a proxy`, {timeout: 60000}, () => {
        let proxy;
        let client;

        afterEach(async () => {
            const disconnected = client?.disconnect();
            if (disconnected) {
                await settled("disconnect", disconnected).catch(() => undefined);
            }
            await proxy?.close();
        });

        for (const [name, arrange] of Object.entries(INTERLEAVINGS)) {
            test(name, async () => {
                proxy = new HoldingProxy(new globalThis.URL(SERVER_URL));
                arrange(proxy, transport);
                client = raceClient(await proxy.listen(), transport);
                await roundTrips(client, transport, "/chat/race");
                assert.equal(client.connectionTypes.at(-1), transport, JSON.stringify(client.connectionTypes));
            });
        }
    });
}

describe("Faye over WebSocket on a machine kept busy", {timeout: 120000}, () => {
    const HANDSHAKES = 200;
    const AT_ONCE = 20;
    const burners = [];

    before(() => {
        // Two processes that spin for at most a minute (killed when the test ends), so that the
        // server's event loops and Faye's own are late with what they read.
        for (let i = 0; i < 2; i++) {
            burners.push(spawn(process.execPath, ["-e", "const end = Date.now() + 60000; while (Date.now() < end) {}"], {stdio: "ignore"}));
        }
    });

    after(() => {
        for (const burner of burners) {
            burner.kill("SIGKILL");
        }
    });

    test(`${HANDSHAKES} clients handshake and move to their sockets, none refused`, async () => {
        const refused = [];
        for (let wave = 0; wave < HANDSHAKES / AT_ONCE; wave++) {
            const clients = Array.from({length: AT_ONCE}, () => raceClient(SERVER_URL, "websocket"));
            try {
                await Promise.all(clients.map((client, i) => roundTrips(client, "websocket", `/chat/busy/${wave}/${i}`)));
            } finally {
                await Promise.allSettled(clients.map(client => {
                    refused.push(...client.refusals);
                    const disconnected = client.disconnect();
                    return disconnected ? settled("disconnect", disconnected) : undefined;
                }));
            }
        }
        assert.deepEqual(refused, [], "no meta reply refused");
    });
});
