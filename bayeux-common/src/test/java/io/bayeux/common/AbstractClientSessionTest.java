package io.bayeux.common;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link AbstractClientSession#receive} dispatches to listeners and subscribers. */
class AbstractClientSessionTest {
    /** A session that sends nowhere. */
    private static final class Session extends AbstractClientSession {
        @Override
        protected Message.Mutable newMessage() {
            return new HashMapMessage();
        }

        @Override
        protected void sendBatch(List<Message.Mutable> messages) {
        }

        @Override
        public String getId() {
            return "s1";
        }

        @Override
        public boolean isConnected() {
            return true;
        }

        @Override
        public boolean isHandshook() {
            return true;
        }

        @Override
        public void handshake(Map<String, Object> fields, MessageListener callback) {
        }

        @Override
        public void disconnect(MessageListener callback) {
        }
    }

    private static Message.Mutable message(String channel, Object data, Boolean successful) {
        HashMapMessage message = new HashMapMessage();
        message.setChannel(channel);
        if (data != null) {
            message.setData(data);
        }
        if (successful != null) {
            message.setSuccessful(successful);
        }
        return message;
    }

    @Test
    void wildcardListenersSeeMetaRepliesAndSubscribersOnlyBroadcasts() {
        Session session = new Session();
        List<String> seen = new ArrayList<>();
        session.getChannel("/meta/*").addListener((ClientSessionChannel.MessageListener) (c, m) -> seen.add("meta/* " + m.getChannel()));
        session.getChannel("/meta/**").addListener((ClientSessionChannel.MessageListener) (c, m) -> seen.add("meta/** " + m.getChannel()));
        session.getChannel("/foo/*").addListener((ClientSessionChannel.MessageListener) (c, m) -> seen.add("listener foo/* " + m.getChannel()));
        session.getChannel("/foo/*").subscribe((c, m) -> seen.add("subscriber foo/* " + m.getChannel()));
        seen.clear();

        session.receive(message("/meta/connect", null, true));
        session.receive(message("/foo/bar", null, true));
        session.receive(message("/foo/bar", "data", null));

        assertEquals(List.of("meta/* /meta/connect", "meta/** /meta/connect",
                "listener foo/* /foo/bar",
                "listener foo/* /foo/bar", "subscriber foo/* /foo/bar"), seen);
    }

    @Test
    void aWildcardChannelMadeAfterMessagesFlowedIsNotifiedFromThenOn() {
        Session session = new Session();
        List<String> seen = new ArrayList<>();
        session.getChannel("/chat/room/17").subscribe((c, m) -> seen.add("room " + m.getData()));
        session.receive(message("/chat/room/17", "1", null));
        session.receive(message("/chat/room/18", "2", null));

        session.getChannel("/chat/**").subscribe((c, m) -> seen.add("chat/** " + m.getData()));
        session.getChannel("/chat/room/*").addListener((ClientSessionChannel.MessageListener) (c, m) -> seen.add("room/* " + m.getData()));
        session.receive(message("/chat/room/17", "3", null));
        session.receive(message("/chat/room/18", "4", null));

        assertEquals(List.of("room 1", "room 3", "room/* 3", "chat/** 3", "room/* 4", "chat/** 4"), seen);
    }

    @Test
    void aChannelWithAListenerOrASubscriberIsNotReleased() {
        Session session = new Session();
        ClientSessionChannel channel = session.getChannel("/chat");
        ClientSessionChannel.MessageListener listener = (c, m) -> {
        };
        channel.addListener(listener);
        assertFalse(channel.release(), "it has a listener");
        assertFalse(channel.isReleased());
        channel.removeListener(listener);
        channel.subscribe(listener);
        assertFalse(channel.release(), "it has a subscriber");
        assertSame(channel, session.getChannel("/chat"));
    }

    @Test
    void aReleasedChannelRefusesFurtherUseAndTheSessionMakesANewOne() {
        Session session = new Session();
        ClientSessionChannel channel = session.getChannel("/chat");
        assertTrue(channel.release());
        assertTrue(channel.isReleased());
        assertFalse(channel.release(), "released once");
        ClientSessionChannel.MessageListener listener = (c, m) -> {
        };
        for (Runnable use : List.<Runnable>of(
                () -> channel.addListener(listener),
                () -> channel.removeListener(listener),
                () -> channel.subscribe(listener),
                () -> channel.unsubscribe(listener),
                channel::unsubscribe,
                () -> channel.publish("data"))) {
            IllegalStateException x = assertThrows(IllegalStateException.class, use::run);
            assertTrue(x.getMessage().contains("/chat") && x.getMessage().contains("released"), x.getMessage());
        }
        ClientSessionChannel fresh = session.getChannel("/chat");
        assertNotSame(channel, fresh);
        assertFalse(fresh.isReleased());
        fresh.addListener(listener);
        assertEquals(List.of(listener), fresh.getListeners());
    }
}
