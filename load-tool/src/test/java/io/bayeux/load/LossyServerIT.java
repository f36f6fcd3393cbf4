package io.bayeux.load;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Servers that lose messages on purpose: the tool reports exactly how many. */
class LossyServerIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(120)
    void aServerThatSilentlyDropsEveryHundredthDeliveryIsReportedWithTheExactLoss() throws Exception {
        AtomicLong deliveries = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        NettyBayeuxServer server = servers.start(bayeux -> bayeux.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
                session.addListener((ServerSession.MessageListener) (to, from, m) -> {
                    if (!m.getChannel().startsWith("/chat/") || deliveries.incrementAndGet() % 100 != 0) {
                        return true;
                    }
                    dropped.incrementAndGet();
                    return false;
                });
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            }
        }));

        RunResult result = new ChatBenchmark(TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 100, 60), "lossy", null, 2,
                TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertTrue(dropped.get() > 0);
        assertEquals("quiet", result.drain(), "nothing more came: the missing messages are lost");
        assertEquals(dropped.get(), counts.lost());
        assertEquals(counts.expected() - dropped.get(), counts.received());
        assertEquals(0, counts.duplicated());
    }

    @Test
    @Timeout(120)
    void publishesThatAChannelListenerVetoesAreReportedAsFailedAndNotExpected() throws Exception {
        AtomicLong publishes = new AtomicLong();
        AtomicLong vetoed = new AtomicLong();
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(bayeux -> {
            bayeux.createChannelIfAbsent("/chat/**", channel -> channel.addListener((ServerChannel.MessageListener) (from, target, m) -> {
                if (publishes.incrementAndGet() % 100 != 0) {
                    return true;
                }
                vetoed.incrementAndGet();
                return false;
            }));
            count.accept(bayeux);
        });

        RunResult result = new ChatBenchmark(TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 100, 60), "vetoed", null, 2,
                TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertTrue(vetoed.get() > 0);
        assertEquals(vetoed.get(), counts.failedPublishes());
        assertEquals(0, counts.lost());
        assertEquals(counts.expected(), counts.received());
    }
}
