package io.bayeux.server;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a held connect's reply is made when its timer fires on an event loop: there, unless application code takes part. */
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
}
