// Shared helpers for the tests against the demo server: its URL, bounded waits, a message inbox.

export const URL = process.env.BAYEUX_URL;
if (!URL) {
    throw new Error("BAYEUX_URL is not set: run these tests through InteropNodeIT (mvn verify), or set it to a running demo server's endpoint");
}

export {WAIT, within, Inbox, pause} from "./wait.mjs";
