package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A proxy between the client and the server that swallows or cuts WebSocket upgrades while it
 * relays long-polling: the client falls back to long-polling within a bounded time, and comes
 * back to WebSocket on a later handshake once the upgrade works again.
 */
class UpgradeFallbackIT {
    private static final Duration UPGRADE_TIMEOUT = Duration.ofSeconds(2);

    private final ClientConfig config = ClientConfig.builder()
            .upgradeTimeout(UPGRADE_TIMEOUT)
            .backoffIncrement(Duration.ofMillis(100))
            .maxBackoff(Duration.ofSeconds(1))
            .build();
    private NettyBayeuxServer server;
    private UpgradeProxy proxy;
    private BayeuxClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private void start(UpgradeProxy.Mode mode) throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        proxy = new UpgradeProxy(server.port(), mode);
        client = new BayeuxClient(proxy.uri(server.uri()).toString(), config);
    }

    /** Waits, at most {@code within}, until the client is connected over {@code transport}. */
    private void awaitConnectedOver(String transport, Duration within) {
        Await.until(within, () -> client.isConnected() && transport.equals(client.getTransportName()),
                () -> "the client connected over " + transport + ": " + client);
    }

    /** Publishes from the server on {@code channel} and expects it in {@code received}. */
    private void roundTrip(String channel, BlockingQueue<Object> received, int n) throws InterruptedException {
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        client.getChannel(channel).publish(Map.of("from", "client", "n", n), published::add);
        assertTrue(next(published).isSuccessful(), "the client's publish");
        assertEquals(Map.of("from", "client", "n", n), next(received));
        server.bayeux().createChannelIfAbsent(channel).getReference().publish(null, Map.of("from", "server", "n", n), Promise.noop());
        assertEquals(Map.of("from", "server", "n", n), next(received));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = UpgradeProxy.Mode.class, names = {"SWALLOW", "CUT", "CUT_AFTER_UPGRADE"})
    void anUpgradeThatHangsOrIsCutFallsBackToLongPollingThenWebSocketComesBackOnAReHandshake(UpgradeProxy.Mode mode) throws Exception {
        start(mode);

        client.handshake();

        // Bounded: the upgrade timeout, then long-polling; WAIT covers a loaded machine.
        awaitConnectedOver(LongPollingTransport.NAME, UPGRADE_TIMEOUT.plus(WAIT));
        assertTrue(proxy.upgrades.get() >= 1, "WebSocket was tried first");
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/fallback", (channel, message) -> received.add(message.getData()));
        roundTrip("/fallback", received, 1);
        assertEquals(LongPollingTransport.NAME, client.getTransportName());

        // The proxy mends its ways, and the server restarts (on another port, behind the same
        // proxy): it forgets the session, the client handshakes again and tries WebSocket first.
        proxy.mode(UpgradeProxy.Mode.FORWARD);
        String firstId = client.getId();
        server.stop();
        server = NettyBayeuxServer.builder().port(0).build().start();
        proxy.target(server.port());

        awaitConnectedOver(WebSocketTransport.NAME, WAIT.plus(WAIT));
        assertTrue(!firstId.equals(client.getId()), "a new session");
        roundTrip("/fallback", received, 2);
    }

    @Test
    void withTheDefaultConfigASwallowedUpgradeFallsBackAfterTheDefaultUpgradeTimeout() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        proxy = new UpgradeProxy(server.port(), UpgradeProxy.Mode.SWALLOW);
        client = new BayeuxClient(proxy.uri(server.uri()).toString());
        long start = System.nanoTime();

        client.handshake();

        awaitConnectedOver(LongPollingTransport.NAME, ClientConfig.DEFAULT_UPGRADE_TIMEOUT.plus(WAIT));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(ClientConfig.DEFAULT_UPGRADE_TIMEOUT) >= 0, () -> "the upgrade was given its time: " + took);
        assertEquals(1, proxy.upgrades.get(), "one upgrade, then long-polling only");
    }

    @Test
    void aWebSocketThatWorkedAndDroppedIsTriedAgainAndLongPollingIsUsedWhenTheRetryFails() throws Exception {
        start(UpgradeProxy.Mode.FORWARD);
        Clients.connect(client);
        assertEquals(WebSocketTransport.NAME, client.getTransportName());
        String id = client.getId();
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/drop", (channel, message) -> received.add(message.getData()));

        proxy.mode(UpgradeProxy.Mode.SWALLOW);
        proxy.cutAll();

        awaitConnectedOver(LongPollingTransport.NAME, UPGRADE_TIMEOUT.plus(WAIT));
        assertEquals(2, proxy.upgrades.get(), "one more WebSocket after the drop, then long-polling");
        assertEquals(id, client.getId(), "the same session, over long-polling now");
        roundTrip("/drop", received, 1);
    }

    @Test
    void aWebSocketThatWorkedAndDroppedStaysOnWebSocketWhenTheRetryWorks() throws Exception {
        start(UpgradeProxy.Mode.FORWARD);
        Clients.connect(client);
        String id = client.getId();
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/drop", (channel, message) -> received.add(message.getData()));

        proxy.cutAll();

        Await.until(WAIT, () -> proxy.upgrades.get() >= 2, () -> "a new WebSocket after the drop; upgrades " + proxy.upgrades.get());
        assertEquals(2, proxy.upgrades.get(), "one new WebSocket after the drop");
        awaitConnectedOver(WebSocketTransport.NAME, WAIT);
        assertEquals(id, client.getId());
        roundTrip("/drop", received, 1);
    }

    @Test
    void aNewHandshakeByTheApplicationTriesWebSocketAgain() throws Exception {
        start(UpgradeProxy.Mode.SWALLOW);
        client.handshake();
        awaitConnectedOver(LongPollingTransport.NAME, UPGRADE_TIMEOUT.plus(WAIT));

        proxy.mode(UpgradeProxy.Mode.FORWARD);
        BlockingQueue<Message> disconnected = new LinkedBlockingQueue<>();
        client.disconnect(disconnected::add);
        next(disconnected);
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
        client.handshake();

        awaitConnectedOver(WebSocketTransport.NAME, WAIT);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/again", (channel, message) -> received.add(message.getData()));
        roundTrip("/again", received, 1);
    }
}
