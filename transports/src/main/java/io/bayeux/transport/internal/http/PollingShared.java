package io.bayeux.transport.internal.http;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.internal.LoopOutbox;

import java.util.concurrent.Executor;

/**
 * What every long-polling and callback-polling request of one server shares, made once per
 * server: each {@link BayeuxExchange} keeps a reference to it. Immutable; its collaborators are
 * thread-safe.
 *
 * @param bayeux        the core the requests' messages go to
 * @param executor      where requests are handled that cannot be on the event loop
 * @param browserCookie the cookie that binds sessions to their browser
 * @param outboxes      the event loops' outboxes: responses written from the executor, one round per loop
 * @param path          the endpoint path, for each request's {@code BayeuxContext}
 */
record PollingShared(BayeuxServerImpl bayeux, Executor executor, BrowserCookie browserCookie, LoopOutbox.Registry outboxes,
                     String path) {
}
