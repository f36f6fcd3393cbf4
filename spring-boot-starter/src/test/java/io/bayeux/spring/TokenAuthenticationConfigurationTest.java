package io.bayeux.spring;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.auth.jwt.JwtAuthentication;
import io.bayeux.auth.jwt.JwtConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which token authentication the auto-configuration installs, from which properties or beans, in contexts that start nothing on the network. */
class TokenAuthenticationConfigurationTest {
    private static final String SECRET = "a spring test secret of 32 bytes or more";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BayeuxAutoConfiguration.class))
            .withPropertyValues("bayeux.port=0");

    @Test
    void withoutTokenPropertiesNothingIsInstalled() {
        runner.run(context -> {
            assertNull(context.getStartupFailure());
            assertFalse(context.containsBean("bayeuxJwtAuthentication"));
            assertTrue(context.getBeansOfType(JwtConfig.class).isEmpty());
        });
    }

    @Test
    void theTokenPropertiesMakeTheConfigAndInstallItsPolicy() {
        runner.withPropertyValues("bayeux.token.secret=" + SECRET, "bayeux.token.issuer=https://auth.example",
                "bayeux.token.audience=chat", "bayeux.token.clock-skew=5s", "bayeux.token.refresh-lead=20s",
                "bayeux.token.refresh-grace=3s", "bayeux.token.public-channels=/service/echo,/lobby/**").run(context -> {
            JwtConfig config = context.getBean(JwtConfig.class);
            assertNotNull(config.hmacSecret());
            assertEquals("https://auth.example", config.issuer());
            assertEquals("chat", config.audience());
            assertEquals(Duration.ofSeconds(5), config.clockSkew());
            assertEquals(Duration.ofSeconds(20), config.refreshLead());
            assertEquals(Duration.ofSeconds(3), config.refreshGrace());
            assertEquals(List.of("/service/echo", "/lobby/**"), config.publicChannels());
            JwtAuthentication authentication = context.getBean(JwtAuthentication.class);
            assertSame(authentication.policy(), context.getBean(BayeuxServer.class).getSecurityPolicy());
            assertNotNull(context.getBean(BayeuxServer.class).getChannel(JwtAuthentication.REFRESH_CHANNEL), "the refresh flow is installed");
        });
    }

    @Test
    void aJwksUrlAloneTurnsItOn() {
        runner.withPropertyValues("bayeux.token.jwks-url=https://auth.example/jwks.json").run(context -> {
            assertEquals(URI.create("https://auth.example/jwks.json"), context.getBean(JwtConfig.class).jwksUrl());
            assertNotNull(context.getBean(JwtAuthentication.class));
        });
    }

    @Test
    void theApplicationsOwnConfigWinsOverTheProperties() {
        runner.withUserConfiguration(OwnConfig.class).withPropertyValues("bayeux.token.secret=" + SECRET, "bayeux.token.issuer=ignored")
                .run(context -> {
                    JwtConfig config = context.getBean(JwtConfig.class);
                    assertSame(OwnConfig.CONFIG, config);
                    assertSame(context.getBean(JwtAuthentication.class).policy(), context.getBean(BayeuxServer.class).getSecurityPolicy());
                });
        runner.withUserConfiguration(OwnConfig.class).run(context ->
                assertSame(context.getBean(JwtAuthentication.class).policy(), context.getBean(BayeuxServer.class).getSecurityPolicy(),
                        "no property needed with a config bean"));
    }

    @Test
    void aRefusedValueFailsTheStartNamingThePropertyAndNeverTheSecret() {
        runner.withPropertyValues("bayeux.token.secret=short").run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure());
            assertEquals("bayeux.token.secret", x.getName());
            assertEquals("(hidden)", x.getValue());
            assertTrue(x.getReason().contains("at least 32 bytes"), x.getReason());
        });
        runner.withPropertyValues("bayeux.token.jwks-url=ftp://keys.example").run(context ->
                assertEquals("bayeux.token.jwks-url", rootCause(context.getStartupFailure()).getName()));
        runner.withPropertyValues("bayeux.token.secret=" + SECRET, "bayeux.token.public-channels=not a channel").run(context ->
                assertEquals("bayeux.token.public-channels", rootCause(context.getStartupFailure()).getName()));
    }

    @Test
    void tokenPropertiesWithoutTheModuleFailTheStartInsteadOfRunningOpen() {
        runner.withClassLoader(new FilteredClassLoader("io.bayeux.auth.jwt")).withPropertyValues("bayeux.token.secret=" + SECRET).run(context -> {
            InvalidConfigurationPropertyValueException x = rootCause(context.getStartupFailure());
            assertEquals("bayeux.token.secret", x.getName());
            assertTrue(x.getReason().contains("bayeux-auth-jwt"), x.getReason());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnConfig {
        static final JwtConfig CONFIG = JwtConfig.builder().hmacSecret("the application's own secret, 32 bytes+").build();

        @Bean
        JwtConfig ownJwtConfig() {
            return CONFIG;
        }
    }

    private static InvalidConfigurationPropertyValueException rootCause(Throwable failure) {
        assertNotNull(failure, "the context started");
        for (Throwable x = failure; x != null; x = x.getCause()) {
            if (x instanceof InvalidConfigurationPropertyValueException found) {
                return found;
            }
        }
        throw new AssertionError("No InvalidConfigurationPropertyValueException in " + failure, failure);
    }
}
