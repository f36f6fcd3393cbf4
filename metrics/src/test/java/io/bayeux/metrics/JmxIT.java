package io.bayeux.metrics;

import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.Clock;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's meters through Micrometer's JMX registry, as jconsole or jcmd see them: MBeans of the platform server. */
class JmxIT {
    @Test
    void aServerGaugeIsAnMBeanOfThePlatformServer() throws Exception {
        JmxMeterRegistry registry = new JmxMeterRegistry(JmxConfig.DEFAULT, Clock.SYSTEM);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = mbeans.queryNames(new ObjectName("metrics:name=bayeuxChannels,*"), null);
            assertEquals(1, names.size(), () -> "bayeuxChannels among " + mbeans.queryNames(null, null));
            int before = ((Number) mbeans.getAttribute(names.iterator().next(), "Value")).intValue();
            assertEquals(server.bayeux().getChannels().size(), before);
            server.bayeux().createChannelIfAbsent("/jmx/visible");
            assertEquals(before + 1, ((Number) mbeans.getAttribute(names.iterator().next(), "Value")).intValue());
            assertTrue(metrics.registry() == registry);
        } finally {
            registry.close();
        }
    }
}
