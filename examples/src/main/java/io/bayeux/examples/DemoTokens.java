package io.bayeux.examples;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.bayeux.auth.jwt.JwtAuthentication;
import io.bayeux.auth.jwt.JwtConfig;
import io.bayeux.presence.Presence;
import io.bayeux.transport.HttpRoute;
import io.bayeux.transport.NettyBayeuxServer;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The demo with token authentication: the {@code --token-secret SECRET} (HS256) and
 * {@code --token-jwks URL} flags of {@link DemoServer}. The demo's own service channels stay open
 * to every authenticated session; the chat rooms need the token's {@code subscribe} and
 * {@code publish} claims. With a secret, {@code GET /token?user=NAME} mints a token for the chat
 * page (anyone may ask: a demo's convenience, never an application's).
 */
final class DemoTokens {
    static final List<String> FLAGS = List.of("--token-secret", "--token-jwks");
    /** The demo's service channels, open to every authenticated session. */
    static final String[] PUBLIC_CHANNELS = {"/service/echo", "/service/members", "/members/*"};
    /** How long a minted token lasts. */
    static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final Pattern USER = Pattern.compile("[\\p{L}\\p{N} _.\\-]{1,40}");

    private String secret;
    private URI jwks;
    /** Set by the server's service callback when it is built; read by the main thread after that. */
    private volatile JwtAuthentication authentication;

    void set(String flag, String value) {
        switch (flag) {
            case "--token-secret" -> {
                if (value.getBytes(StandardCharsets.UTF_8).length < 32) {
                    throw new IllegalArgumentException("--token-secret needs at least 32 bytes (HS256)");
                }
                secret = value;
            }
            case "--token-jwks" -> jwks = URI.create(value);
            default -> throw new IllegalArgumentException("Unknown flag " + flag);
        }
    }

    boolean enabled() {
        return secret != null || jwks != null;
    }

    /** Token authentication on the server that {@code builder} builds, and the token page when there is a secret. */
    void install(NettyBayeuxServer.Builder builder) {
        JwtConfig.Builder config = JwtConfig.builder().publicChannels(PUBLIC_CHANNELS);
        if (secret != null) {
            config.hmacSecret(secret);
            builder.route("/token", this::mint);
        }
        if (jwks != null) {
            config.jwksUrl(jwks);
        }
        JwtConfig built = config.build();
        builder.service(bayeux -> authentication = JwtAuthentication.install(bayeux, built));
    }

    /** Users found through {@code presence} on whatever node they authenticated on. */
    void associateUsers(Presence presence) {
        authentication.associateUsers(presence);
    }

    private HttpRoute.Reply mint(HttpRoute.Request request) throws JOSEException {
        String user = request.parameter("user");
        if (user == null || !USER.matcher(user).matches()) {
            return HttpRoute.Reply.text(400, "user: 1 to 40 letters, digits, spaces, '_', '.' or '-'");
        }
        Instant now = Clock.systemUTC().instant();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .subject(user)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(LIFETIME)))
                .claim("subscribe", List.of("/chat/**"))
                .claim("publish", List.of("/chat/**"))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return HttpRoute.Reply.json(200, "{\"token\":\"" + jwt.serialize() + "\"}").withHeader("Cache-Control", "no-store");
    }
}
