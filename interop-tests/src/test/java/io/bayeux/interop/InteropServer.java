package io.bayeux.interop;

import io.bayeux.api.Channel;
import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.examples.DemoServer;
import io.bayeux.transport.NettyBayeuxServer;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo server, exactly as {@link DemoServer} configures it (with its history when made by
 * {@link #withHistory}), on an ephemeral port, plus one test hook that makes the server forget a session the way an expiry or a restart does.
 *
 * <p>The hook: a client remote-calls {@value #FORGET} (e.g. {@code remoteCall("interop/forget", {})}).
 * The server answers it in the next {@code /meta/connect} reply (so the held connect returns
 * normally, on every transport), then removes the session when the client's first
 * {@code /meta/connect} after that reply arrives, before handling it: the client sees its clientId answered with
 * {@code 402::session_unknown} and {@code advice: {reconnect: "handshake"}}, which is what it meets
 * after a session expired or the server restarted. Removing a session while its connect is held
 * (plain {@code removeSession}) would instead answer that connect with {@code reconnect: "none"},
 * which tells a client to stop, as CometD does.
 */
final class InteropServer implements AutoCloseable {
    static final String FORGET = "/service/interop/forget";

    private final Set<String> toForget = ConcurrentHashMap.newKeySet();
    private final NettyBayeuxServer server;

    InteropServer() {
        this(null, false);
    }

    private InteropServer(HistoryPolicy history, boolean compressionContext) {
        NettyBayeuxServer.Builder builder = DemoServer.configure(NettyBayeuxServer.builder().port(0)
                .websocketCompressionContext(compressionContext));
        if (history != null) {
            builder.service(DemoServer.history(history));
        }
        server = builder.service(this::installForgetHook).build().start();
    }

    /**
     * The demo as {@code bin/bayeux-demo --history-size SIZE --history-ttl TTL} starts it: history
     * on every {@code /chat/**} channel, and the {@code replay} dialect on {@code /event/**}.
     */
    static InteropServer withHistory(int size, Duration ttl) {
        return new InteropServer(HistoryPolicy.of(size, ttl), false);
    }

    /**
     * The demo as {@code bin/bayeux-demo --websocket-compression-context} starts it: a
     * permessage-deflate context per connection for the clients that allow it.
     */
    static InteropServer withCompressionContext() {
        return new InteropServer(null, true);
    }

    private void installForgetHook(BayeuxServer bayeux) {
        bayeux.createChannelIfAbsent(FORGET, channel -> {
            channel.setPersistent(true);
            channel.addListener((io.bayeux.api.server.ServerChannel.MessageListener) (from, ch, message) -> {
                if (from != null) {
                    // Forget the session once the answer leaves in a connect reply, not before.
                    from.addListener((ServerSession.DeQueueListener) (session, queue) -> {
                        if (queue.stream().anyMatch(m -> FORGET.equals(m.getChannel()) && m.getData() != null)) {
                            toForget.add(session.getId());
                        }
                    });
                    from.setMetaConnectDeliveryOnly(true);
                    ServerMessage.Mutable reply = bayeux.newMessage();
                    reply.setChannel(FORGET);
                    reply.setId(message.getId());
                    reply.setSuccessful(true);
                    reply.setData(Map.of("forgetting", from.getId()));
                    from.deliver(null, reply, Promise.noop());
                }
                return true;
            });
        });
        bayeux.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                if (from != null && Channel.META_CONNECT.equals(message.getChannel()) && toForget.remove(from.getId())) {
                    bayeux.removeSession(from);
                }
                return true;
            }
        });
    }

    NettyBayeuxServer server() {
        return server;
    }

    URI uri() {
        return server.uri();
    }

    @Override
    public void close() {
        server.stop();
    }
}
