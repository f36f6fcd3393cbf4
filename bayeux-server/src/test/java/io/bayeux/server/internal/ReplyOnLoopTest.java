package io.bayeux.server.internal;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.NonBlocking;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a held connect's reply is made when its timer fires on an event loop, and which
 * batches a transport may handle on its event loop: there, unless application code takes part.
 */
class ReplyOnLoopTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    /** The work handed to the executor, not run: the test only looks at where it went. */
    private final List<Runnable> handedOver = new ArrayList<>();
    private BayeuxServerImpl server;
    private ServerSessionImpl session;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(handedOver::add).build()).start();
        TestClient client = new TestClient(server, false).connected();
        session = (ServerSessionImpl) server.getSession(client.clientId());
        handedOver.clear();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    /** @return "loop" when the completion ran at once, "executor" when it was handed over */
    private String where() {
        List<String> ran = new ArrayList<>();
        int before = handedOver.size();
        server.completeFromLoop(session, () -> ran.add("loop"));
        if (handedOver.size() > before) {
            handedOver.remove(handedOver.size() - 1).run();
            return ran.equals(List.of("loop")) ? "executor" : "lost";
        }
        return ran.equals(List.of("loop")) ? "loop" : "lost";
    }

    private static final class Plain implements BayeuxServer.Extension {
    }

    private static final class Quick implements BayeuxServer.Extension, NonBlocking {
    }

    private static final class PlainOfSession implements ServerSession.Extension {
    }

    private static final class QuickOfSession implements ServerSession.Extension, NonBlocking {
    }

    @Test
    void withoutApplicationCodeTheReplyIsMadeOnTheLoop() {
        assertEquals("loop", where());
        server.addExtension(new Quick());
        session.addExtension(new QuickOfSession());
        assertEquals("loop", where(), "non-blocking extensions only");
    }

    @Test
    void aServerExtensionThatMayBlockSendsItToTheExecutorUntilRemoved() {
        Plain plain = new Plain();
        server.addExtension(new Quick());
        server.addExtension(plain);
        assertEquals("executor", where());
        server.removeExtension(plain);
        assertEquals("loop", where());
    }

    @Test
    void aSessionsOwnApplicationCodeSendsItToTheExecutor() {
        PlainOfSession extension = new PlainOfSession();
        session.addExtension(extension);
        assertEquals("executor", where(), "a session extension that may block");
        session.removeExtension(extension);
        assertEquals("loop", where());

        ServerSession.HeartBeatListener heartBeat = new ServerSession.HeartBeatListener() {
        };
        session.addListener(heartBeat);
        assertEquals("executor", where(), "a heart-beat listener");
        session.removeListener(heartBeat);
        assertEquals("loop", where());

        ServerSession.DeQueueListener deQueue = (ServerSession s, Queue<ServerMessage> queue) -> {
        };
        session.addListener(deQueue);
        assertEquals("executor", where(), "a dequeue listener");
        session.removeListener(deQueue);
        assertEquals("loop", where());
    }

    private ServerMessage.Mutable message(String channel, String clientId) {
        ServerMessage.Mutable message = server.newMessage();
        message.put(Message.CHANNEL_FIELD, channel);
        if (clientId != null) {
            message.put(Message.CLIENT_ID_FIELD, clientId);
        }
        return message;
    }

    private boolean onLoop(ServerMessage.Mutable... batch) {
        return server.handlesOnLoop(List.of(batch));
    }

    @Test
    void onlyConnectsOfKnownSessionsWithoutApplicationCodeAreHandledOnTheLoop() {
        String id = session.getId();
        assertTrue(onLoop(message(Channel.META_CONNECT, id)));
        assertTrue(onLoop(message(Channel.META_CONNECT, id), message(Channel.META_CONNECT, id)), "a batch of connects");

        assertFalse(onLoop(message(Channel.META_CONNECT, "unknown")), "an unknown session is told so on the executor");
        assertFalse(onLoop(message(Channel.META_CONNECT, null)), "no client id");
        assertFalse(onLoop(message(Channel.META_HANDSHAKE, null)), "a handshake (the security policy takes part)");
        assertFalse(onLoop(message(Channel.META_SUBSCRIBE, id)), "a subscribe (authorizers take part)");
        assertFalse(onLoop(message("/chat", id), message(Channel.META_CONNECT, id)), "a publish with the connect");

        Plain plain = new Plain();
        server.addExtension(plain);
        assertFalse(onLoop(message(Channel.META_CONNECT, id)), "a server extension that may block");
        server.removeExtension(plain);

        ServerSession.HeartBeatListener heartBeat = new ServerSession.HeartBeatListener() {
        };
        session.addListener(heartBeat);
        assertFalse(onLoop(message(Channel.META_CONNECT, id)), "a session's heart-beat listener");
        session.removeListener(heartBeat);

        ServerChannel.MessageListener listener = (from, channel, message) -> true;
        ServerChannel connects = server.createChannelIfAbsent(Channel.META_CONNECT).getReference();
        connects.addListener(listener);
        assertFalse(onLoop(message(Channel.META_CONNECT, id)), "a listener on /meta/connect");
        connects.removeListener(listener);

        assertTrue(onLoop(message(Channel.META_CONNECT, id)), "all of them removed");
        session.disconnect();
        assertFalse(onLoop(message(Channel.META_CONNECT, id)), "a session that went away");
    }
}
