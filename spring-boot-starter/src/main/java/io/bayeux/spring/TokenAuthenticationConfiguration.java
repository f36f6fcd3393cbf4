package io.bayeux.spring;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.auth.jwt.JwtAuthentication;
import io.bayeux.auth.jwt.JwtConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Token authentication ({@code bayeux-auth-jwt} on the class path): a {@link JwtConfig} bean made
 * from {@code bayeux.token.*} when {@code bayeux.token.secret} or {@code bayeux.token.jwks-url} is
 * set, unless the application has a {@code JwtConfig} bean of its own, which wins; and, with either,
 * {@link JwtAuthentication} installed on the server through {@link JwtAuthentication#install} (the
 * security policy, the refresh flow on {@code /service/token} and the detailed refusals) before the
 * server starts, and closed with the context; on a cluster that keeps presence, each authenticated
 * user associated there ({@link TokenUsersPresence}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "io.bayeux.auth.jwt.JwtAuthentication")
class TokenAuthenticationConfiguration {

    /** The token's installation; its policy is the server's, so the application has no other {@code SecurityPolicy} bean. */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(JwtConfig.class)
    @ConditionalOnMissingBean
    JwtAuthentication bayeuxJwtAuthentication(BayeuxServer bayeux, JwtConfig config) {
        return JwtAuthentication.install(bayeux, config);
    }

    /** On a cluster with presence (Oort's Seti, Redis' RedisSeti), each authenticated user is associated there. */
    @Bean
    @ConditionalOnBean(JwtAuthentication.class)
    TokenUsersPresence bayeuxTokenUsersPresence(JwtAuthentication authentication, ObjectProvider<ClusterPresence> clusters) {
        return new TokenUsersPresence(authentication, clusters);
    }

    /** Processed before the enclosing class's beans, so that the condition above sees its {@code JwtConfig}. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(TokenPropertiesSet.class)
    static class FromProperties {
        @Bean
        @ConditionalOnMissingBean
        JwtConfig bayeuxJwtConfig(BayeuxProperties properties) {
            return config(properties.getToken());
        }
    }

    /** The config {@code bayeux.token.*} describes; a value the builder refuses fails the start naming its property. */
    static JwtConfig config(BayeuxProperties.Token t) {
        JwtConfig.Builder b = JwtConfig.builder();
        if (t.getSecret() != null && !t.getSecret().isEmpty()) {
            // Never the secret itself in the report.
            BayeuxServerFactory.set("bayeux.token.secret", "(hidden)", () -> b.hmacSecret(t.getSecret()));
        }
        if (t.getJwksUrl() != null && !t.getJwksUrl().isEmpty()) {
            BayeuxServerFactory.set("bayeux.token.jwks-url", t.getJwksUrl(), () -> b.jwksUrl(uri(t.getJwksUrl())));
        }
        b.issuer(t.getIssuer()).audience(t.getAudience());
        BayeuxServerFactory.set("bayeux.token.clock-skew", t.getClockSkew(), () -> b.clockSkew(t.getClockSkew()));
        BayeuxServerFactory.set("bayeux.token.refresh-lead", t.getRefreshLead(), () -> b.refreshLead(t.getRefreshLead()));
        BayeuxServerFactory.set("bayeux.token.refresh-grace", t.getRefreshGrace(), () -> b.refreshGrace(t.getRefreshGrace()));
        BayeuxServerFactory.set("bayeux.token.public-channels", t.getPublicChannels(),
                () -> b.publicChannels(t.getPublicChannels().toArray(String[]::new)));
        return b.build();
    }

    private static URI uri(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException x) {
            throw new IllegalArgumentException(x.getMessage(), x);
        }
    }

    /** {@code bayeux.token.secret} or {@code bayeux.token.jwks-url} is set. */
    static final class TokenPropertiesSet extends AnyNestedCondition {
        TokenPropertiesSet() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(prefix = "bayeux.token", name = "secret")
        static final class Secret {
        }

        @ConditionalOnProperty(prefix = "bayeux.token", name = "jwks-url")
        static final class JwksUrl {
        }
    }
}
