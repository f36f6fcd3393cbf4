package io.bayeux.examples.spring;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.bayeux.spring.BayeuxServerCustomizer;
import io.bayeux.transport.HttpRoute;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The chat with token authentication ({@code --bayeux.token.secret=SECRET}, HS256): the page at
 * {@code GET /token?user=NAME}, on the server's own port, mints a token whose {@code sub} is the
 * user, valid for {@code chat.token-lifetime} (default 10 minutes), that may subscribe to
 * {@code /chat/**} and {@code /members/**} and publish on {@code /chat/**}. Anyone may ask: an
 * example's convenience; an application's page gets its token from its own login.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "bayeux.token", name = "secret")
public class ChatTokens {
    private static final Pattern USER = Pattern.compile("[\\p{L}\\p{N} _.\\-]{1,40}");

    @Bean
    BayeuxServerCustomizer chatTokenPage(@Value("${bayeux.token.secret}") String secret,
                                         @Value("${chat.token-lifetime:10m}") Duration lifetime) {
        MACSigner signer;
        try {
            signer = new MACSigner(secret.getBytes(StandardCharsets.UTF_8));
        } catch (JOSEException x) {
            // The starter refuses such a secret first, naming its property; this is the same check, later.
            throw new IllegalArgumentException("bayeux.token.secret: " + x.getMessage(), x);
        }
        return builder -> builder.route("/token", request -> mint(signer, lifetime, request));
    }

    private static HttpRoute.Reply mint(MACSigner signer, Duration lifetime, HttpRoute.Request request) throws JOSEException {
        String user = request.parameter("user");
        if (user == null || !USER.matcher(user).matches()) {
            return HttpRoute.Reply.text(400, "user: 1 to 40 letters, digits, spaces, '_', '.' or '-'");
        }
        Instant now = Clock.systemUTC().instant();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .subject(user)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(lifetime)))
                .claim("subscribe", List.of("/chat/**", "/members/**"))
                .claim("publish", List.of("/chat/**"))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(signer);
        return HttpRoute.Reply.json(200, "{\"token\":\"" + jwt.serialize() + "\"}").withHeader("Cache-Control", "no-store");
    }
}
