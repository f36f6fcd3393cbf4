package io.bayeux.spring;

import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.server.QueueOverflow;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.ServerSettings;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The auto-configuration in contexts that start nothing on the network: what it builds from which properties. */
class BayeuxAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BayeuxAutoConfiguration.class))
            .withPropertyValues("bayeux.port=0");

    @Test
    void propertiesReachTheServerAndItsProtocolSettings() {
        runner.withPropertyValues("bayeux.host=0.0.0.0", "bayeux.path=/bayeux", "bayeux.allowed-origins=https://a.example,https://b.example",
                "bayeux.timeout=15s", "bayeux.max-interval=30s", "bayeux.max-queue=50", "bayeux.queue-overflow=drop-oldest",
                "bayeux.transports=long-polling", "bayeux.static-roots=classpath:/public", "bayeux.idle-timeout=2m").run(context -> {
            ServerSettings settings = context.getBean(NettyBayeuxServer.class).settings();
            assertEquals("0.0.0.0", settings.host());
            assertEquals("/bayeux", settings.path());
            assertEquals(Set.of("https://a.example", "https://b.example"), settings.allowedOrigins());
            assertEquals(List.of("classpath:/public"), settings.staticRoots());
            assertEquals(Duration.ofMinutes(2), settings.idleTimeout());
            assertEquals(Duration.ofSeconds(15), settings.bayeux().timeout());
            assertEquals(Duration.ofSeconds(30), settings.bayeux().maxInterval());
            assertEquals(50, settings.bayeux().maxQueue());
            assertEquals(QueueOverflow.DROP_OLDEST, settings.bayeux().queueOverflow());
            assertEquals(List.of("long-polling"), settings.bayeux().allowedTransports());
            assertSame(context.getBean(NettyBayeuxServer.class).bayeux(), context.getBean(BayeuxServer.class));
        });
    }

    @Test
    void aValueTheBuilderRefusesFailsTheStartNamingTheProperty() {
        runner.withPropertyValues("bayeux.port=70000").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.port", x.getName());
            assertEquals(70000, x.getValue());
            assertTrue(x.getReason().contains("port must be 0..65535"), x.getReason());
        });
        runner.withPropertyValues("bayeux.max-interval=0s").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.max-interval", x.getName());
        });
        runner.withPropertyValues("bayeux.oort.failure-timeout=10ms", "bayeux.cluster=oort").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.oort.failure-timeout", x.getName());
        });
        runner.withPropertyValues("bayeux.oort.peers=ftp://nowhere", "bayeux.oort.secret=s", "bayeux.cluster=oort").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.oort", x.getName());
            assertTrue(x.getReason().contains("ftp://nowhere"), x.getReason());
        });
    }

    @Test
    void tlsComesFromOneSourceOnly() {
        runner.withPropertyValues("bayeux.tls.self-signed=true").run(context ->
                assertNotNull(context.getBean(NettyBayeuxServer.class).settings().tls()));
        runner.run(context -> assertEquals(null, context.getBean(NettyBayeuxServer.class).settings().tls()));
        runner.withPropertyValues("bayeux.tls.self-signed=true", "bayeux.tls.key-store=/tmp/none.p12").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.tls", x.getName());
        });
        runner.withPropertyValues("bayeux.tls.certificate-chain=/tmp/chain.pem").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.tls.private-key", x.getName());
        });
    }

    @Test
    void customizersChangeTheBuilderAfterTheProperties() {
        runner.withPropertyValues("bayeux.path=/from-properties")
                .withBean(BayeuxServerCustomizer.class, () -> builder -> builder.path("/from-customizer"))
                .run(context -> assertEquals("/from-customizer", context.getBean(NettyBayeuxServer.class).settings().path()));
    }

    @Test
    void aValueOfTheWrongTypeFailsTheBinding() {
        runner.withPropertyValues("bayeux.queue-overflow=sometimes").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure);
            assertTrue(messages(failure).contains("bayeux.queue-overflow"), messages(failure));
        });
    }

    @Test
    void aClusterWhoseModuleIsMissingFailsTheStart() {
        runner.withClassLoader(new FilteredClassLoader("io.bayeux.cluster.redis")).withPropertyValues("bayeux.cluster=redis").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertEquals("bayeux.cluster", x.getName());
            assertTrue(x.getReason().contains("io.bayeux:cluster-redis"), x.getReason());
        });
    }

    @Test
    void aPortInUseFailsTheStartWithAReportThatSaysWhy() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            runner.withPropertyValues("bayeux.port=" + taken.getLocalPort()).run(context -> {
                BayeuxStartException x = rootCause(context.getStartupFailure(), BayeuxStartException.class);
                FailureAnalysis analysis = new BayeuxStartFailureAnalyzer().analyze(context.getStartupFailure());
                assertNotNull(analysis, "the analyzer reports it");
                assertTrue(analysis.getDescription().startsWith("The Bayeux server did not start on 127.0.0.1:" + taken.getLocalPort()), analysis.getDescription());
                assertTrue(analysis.getDescription().contains("Cannot bind"), analysis.getDescription());
                assertTrue(analysis.getAction().contains("bayeux.port"), analysis.getAction());
                assertSame(x, analysis.getCause());
            });
        }
    }

    @Test
    void aRedisThatCannotBeReachedFailsTheStartWithAReportThatSaysWhy() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort();
        }
        runner.withPropertyValues("bayeux.cluster=redis", "bayeux.redis.uri=redis://127.0.0.1:" + closed).run(context -> {
            FailureAnalysis analysis = new BayeuxStartFailureAnalyzer().analyze(context.getStartupFailure());
            assertNotNull(analysis, "the analyzer reports it");
            assertTrue(analysis.getDescription().startsWith("The cluster on Redis at redis://127.0.0.1:" + closed + " did not start"), analysis.getDescription());
            assertTrue(analysis.getAction().contains("bayeux.redis.uri"), analysis.getAction());
        });
    }

    @Test
    void disabledMakesNoServer() {
        runner.withPropertyValues("bayeux.enabled=false").run(context -> assertFalse(context.containsBean("nettyBayeuxServer")));
    }

    @Test
    void beansOfTheApiTypesAreHandedToTheServer() {
        runner.withUserConfiguration(ApiBeans.class).run(context -> {
            BayeuxServer bayeux = context.getBean(BayeuxServer.class);
            assertSame(context.getBean(SecurityPolicy.class), bayeux.getSecurityPolicy());
            assertTrue(bayeux.getExtensions().contains(context.getBean(BayeuxServer.Extension.class)));
            ServerChannel members = bayeux.getChannel("/members/**");
            assertNotNull(members, "the authorizer's channel exists");
            assertTrue(members.isPersistent());
            assertEquals(List.of(ApiBeans.MEMBERS_ONLY), members.getAuthorizers());
        });
    }

    @Test
    void twoSecurityPoliciesFailTheStart() {
        runner.withUserConfiguration(ApiBeans.class).withBean("another", SecurityPolicy.class, () -> new SecurityPolicy() {
        }).run(context -> {
            IllegalStateException x = rootCause(context.getStartupFailure(), IllegalStateException.class);
            assertTrue(x.getMessage().contains("More than one SecurityPolicy bean"), x.getMessage());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ApiBeans {
        static final Authorizer MEMBERS_ONLY = (operation, channel, session, message) -> Authorizer.Result.ignore();

        @Bean
        SecurityPolicy policy() {
            return new SecurityPolicy() {
            };
        }

        @Bean
        BayeuxServer.Extension extension() {
            return new BayeuxServer.Extension() {
            };
        }

        @Bean
        ChannelAuthorizer membersOnly() {
            return new ChannelAuthorizer("/members/**", MEMBERS_ONLY);
        }
    }

    private static <T extends Throwable> T rootCause(Throwable failure, Class<T> type) {
        assertNotNull(failure, "the context started");
        for (Throwable x = failure; x != null; x = x.getCause()) {
            if (type.isInstance(x)) {
                return type.cast(x);
            }
        }
        throw new AssertionError("No " + type.getSimpleName() + " in " + messages(failure), failure);
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable x = failure; x != null; x = x.getCause()) {
            all.append(x).append('\n');
        }
        return all.toString();
    }
}
