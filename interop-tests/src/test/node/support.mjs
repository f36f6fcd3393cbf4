// Shared helpers for the tests against the demo server: its URL, bounded waits, a message inbox, Faye clients.

export const URL = process.env.BAYEUX_URL;
if (!URL) {
    throw new Error("BAYEUX_URL is not set: run these tests through InteropNodeIT (mvn verify), or set it to a running demo server's endpoint");
}

import {Inbox} from "./wait.mjs";

export {WAIT, within, Inbox, pause} from "./wait.mjs";

/**
 * A Faye client of URL restricted to `transport` (and long-polling for its handshake), with
 * `extensions`, recording its meta replies in `client.meta`, every other message it receives in
 * `client.wire` (whether it has a subscriber for it or not) and the connection types its
 * connects used in `client.connectionTypes`.
 */
export function fayeClient(faye, transport, ...extensions) {
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
                client.wire.push(message);
            }
            callback(message);
        }
    });
    for (const extension of extensions) {
        client.addExtension(extension);
    }
    return client;
}
