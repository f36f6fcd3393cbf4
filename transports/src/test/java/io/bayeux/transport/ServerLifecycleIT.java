package io.bayeux.transport;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;

import io.bayeux.testing.Await;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerLifecycleIT {
    @Test
    void theServerIsSeenThroughTheApiTypes() throws Exception {
        assertEquals(BayeuxServer.class, NettyBayeuxServer.class.getMethod("bayeux").getReturnType(),
                "users program against the API, not the implementation");
        assertTrue(AutoCloseable.class.isAssignableFrom(NettyBayeuxServer.class));
    }

    @Test
    void stopClosesConnectionsRemovesSessionsWithoutTellingClientsNotToComeBackAndFreesThePort() throws Exception {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build().start();
        int port = server.port();
        List<Boolean> removed = new CopyOnWriteArrayList<>();
        server.bayeux().addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                removed.add(timeout);
            }
        });
        RawClient client = new RawClient(server.uri(), true).open();
        client.handshake();
        RawClient.reply(client.connect(), "/meta/connect");
        client.sendRaw("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"id\":\"h\",\"clientId\":\"" + client.clientId() + "\"}]");

        server.stop();

        assertEquals(List.of(false), removed, "the session was removed, not expired");
        assertTrue(server.bayeux().getSessions().isEmpty());
        assertEquals(1001, client.closed().get(5, TimeUnit.SECONDS));
        assertTrue(client.received.stream().noneMatch(m -> m.get("advice") instanceof Map<?, ?> advice && "none".equals(advice.get("reconnect"))),
                () -> "a client told not to come back: " + client.received);
        assertThrows(ConnectException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            }
        });
        client.close();
        server.stop(); // twice is harmless
    }

    @Test
    void tryWithResourcesStopsTheServerAndFreesThePort() throws Exception {
        int port;
        NettyBayeuxServer stopped;
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build().start();
             RawClient client = new RawClient(server.uri(), true).open()) {
            port = server.port();
            stopped = server;
            assertEquals(true, client.handshake().get("successful"));
            assertEquals(1, server.bayeux().getSessions().size());
        }
        assertTrue(stopped.bayeux().getSessions().isEmpty(), "the session went with the server");
        assertRefused(port);
        stopped.close(); // idempotent
    }

    @Test
    void startingARunningServerAgainFailsAndLeavesItServing() throws Exception {
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build().start()) {
            IllegalStateException again = assertThrows(IllegalStateException.class, server::start);
            assertTrue(again.getMessage().contains("Already started"), again.getMessage());
            try (RawClient client = new RawClient(server.uri(), false).open()) {
                assertEquals(true, client.handshake().get("successful"));
            }
        }
    }

    @Test
    void aStoppedServerCannotStartAgainAndSaysSo() throws Exception {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build().start();
        int port = server.port();
        server.stop();
        IllegalStateException restart = assertThrows(IllegalStateException.class, server::start);
        assertTrue(restart.getMessage().contains("Stopped"), restart.getMessage());
        assertThrows(IllegalStateException.class, server::port, "not bound");
        assertRefused(port);

        NettyBayeuxServer neverStarted = NettyBayeuxServer.builder().port(0).build();
        neverStarted.close();
        assertThrows(IllegalStateException.class, neverStarted::start);
    }

    @Test
    void aPortInUseFailsTheStartNamingTheAddressAndLeavesNoThreadRunning() throws Exception {
        Set<Thread> before = bayeuxThreads();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            NettyBayeuxServer server = NettyBayeuxServer.builder().port(taken.getLocalPort()).ioThreads(1).build();
            IllegalStateException failure = assertThrows(IllegalStateException.class, server::start);
            assertTrue(failure.getMessage().contains("Cannot bind 127.0.0.1:" + taken.getLocalPort()), failure.getMessage());
        }
        Await.until(Duration.ofSeconds(10), () -> before.containsAll(bayeuxThreads()),
                () -> "the failed server's threads to end: " + bayeuxThreads());
    }

    private static Set<Thread> bayeuxThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("bayeux-")).collect(Collectors.toSet());
    }

    private static void assertRefused(int port) {
        assertThrows(ConnectException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            }
        });
    }

    @Test
    void listenersRunOnTheApplicationExecutorNeverOnAnEventLoop() throws Exception {
        assertListenerThread(NettyBayeuxServer.builder().port(0), false);
    }

    @Test
    void listenersCanRunOnVirtualThreads() throws Exception {
        assertListenerThread(NettyBayeuxServer.builder().port(0).virtualThreads(), true);
    }

    private static void assertListenerThread(NettyBayeuxServer.Builder builder, boolean virtual) throws Exception {
        NettyBayeuxServer server = builder.build().start();
        try {
            CompletableFuture<Thread> thread = new CompletableFuture<>();
            server.bayeux().createChannelIfAbsent("/probe").getReference()
                    .addListener((ServerChannel.MessageListener) (from, channel, message) -> thread.complete(Thread.currentThread()));
            for (boolean websocket : new boolean[]{true, false}) {
                try (RawClient client = new RawClient(server.uri(), websocket).open()) {
                    client.handshake();
                    client.send(Map.of("channel", "/probe", "data", 1));
                    Thread t = thread.get(5, TimeUnit.SECONDS);
                    assertFalse(t.getName().contains("eventLoop") || t.getName().contains("epoll") || t.getName().contains("nio"),
                            "listener ran on " + t.getName());
                    assertEquals(virtual, t.isVirtual(), t.toString());
                }
            }
        } finally {
            server.stop();
        }
    }
}
