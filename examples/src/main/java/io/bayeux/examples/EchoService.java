package io.bayeux.examples;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

/**
 * {@code /service/echo}: sends the data back to the sender only, on the same channel, with the
 * request's id and {@code successful: true}, which is what a client's {@code remoteCall("echo", data)}
 * resolves with.
 */
public final class EchoService implements ServerChannel.MessageListener {
    public static final String CHANNEL = "/service/echo";

    private final BayeuxServer bayeux;

    public EchoService(BayeuxServer bayeux) {
        this.bayeux = bayeux;
        bayeux.createChannelIfAbsent(CHANNEL, channel -> {
            channel.setPersistent(true);
            channel.addListener(this);
        });
    }

    @Override
    public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
        if (from == null) {
            return true;
        }
        ServerMessage.Mutable reply = bayeux.newMessage();
        reply.setChannel(CHANNEL);
        reply.setId(message.getId());
        reply.setSuccessful(true);
        reply.setData(message.getData());
        from.deliver(null, reply, Promise.noop());
        return true;
    }
}
