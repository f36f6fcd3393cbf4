package io.bayeux.auth.jwt;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How tokens are read, verified and refreshed. Immutable and thread-safe; made with
 * {@link #builder()}, whose defaults are:
 *
 * <ul>
 *   <li>{@link Builder#tokenSources tokenSources}: {@code ext.token} of the handshake only;</li>
 *   <li>keys: none; at least one of {@link Builder#hmacSecret}, {@link Builder#keys} and
 *       {@link Builder#jwksUrl} is required;</li>
 *   <li>{@link Builder#algorithms algorithms}: HS256, RS256, ES256 and EdDSA (Ed25519); {@code none}
 *       is never accepted;</li>
 *   <li>{@link Builder#issuer issuer} and {@link Builder#audience audience}: not checked;</li>
 *   <li>{@link Builder#clockSkew clockSkew}: 60 s, allowed on {@code exp} and {@code nbf};</li>
 *   <li>{@link Builder#clock clock}: {@link Clock#systemUTC()};</li>
 *   <li>{@link Builder#maxTokenLength maxTokenLength}: 8192 characters;</li>
 *   <li>{@link Builder#publicChannels publicChannels}: none (only what the claims grant);</li>
 *   <li>{@link Builder#refreshLead refreshLead}: 60 s before {@code exp};
 *       {@link Builder#refreshGrace refreshGrace}: 30 s after it stopped being accepted
 *       ({@code exp} plus the clock skew);
 *       {@link Builder#sweepInterval sweepInterval}: 1 s;</li>
 *   <li>JWKS: cached 5 min ({@link Builder#jwksCacheTime}), fetched again at most once per 30 s
 *       on an unknown key id ({@link Builder#jwksMinRefreshInterval}), 5 s connect and read
 *       timeouts ({@link Builder#jwksTimeout}).</li>
 * </ul>
 */
public final class JwtConfig {
    /** The algorithms accepted unless {@link Builder#algorithms} says otherwise. */
    public static final Set<JWSAlgorithm> DEFAULT_ALGORITHMS =
            Set.of(JWSAlgorithm.HS256, JWSAlgorithm.RS256, JWSAlgorithm.ES256, JWSAlgorithm.EdDSA);

    private final List<TokenSource> tokenSources;
    private final byte[] hmacSecret;
    private final JWKSet keys;
    private final URI jwksUrl;
    private final Duration jwksCacheTime;
    private final Duration jwksMinRefreshInterval;
    private final Duration jwksTimeout;
    private final Set<JWSAlgorithm> algorithms;
    private final String issuer;
    private final String audience;
    private final Duration clockSkew;
    private final Clock clock;
    private final int maxTokenLength;
    private final List<String> publicChannels;
    private final Duration refreshLead;
    private final Duration refreshGrace;
    private final Duration sweepInterval;

    private JwtConfig(Builder builder) {
        this.tokenSources = List.copyOf(builder.tokenSources);
        this.hmacSecret = builder.hmacSecret == null ? null : builder.hmacSecret.clone();
        this.keys = builder.keys;
        this.jwksUrl = builder.jwksUrl;
        this.jwksCacheTime = builder.jwksCacheTime;
        this.jwksMinRefreshInterval = builder.jwksMinRefreshInterval;
        this.jwksTimeout = builder.jwksTimeout;
        this.algorithms = Set.copyOf(builder.algorithms);
        this.issuer = builder.issuer;
        this.audience = builder.audience;
        this.clockSkew = builder.clockSkew;
        this.clock = builder.clock;
        this.maxTokenLength = builder.maxTokenLength;
        this.publicChannels = List.copyOf(builder.publicChannels);
        this.refreshLead = builder.refreshLead;
        this.refreshGrace = builder.refreshGrace;
        this.sweepInterval = builder.sweepInterval;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<TokenSource> tokenSources() {
        return tokenSources;
    }

    /** A copy of the HS256 secret, or {@code null}. */
    public byte[] hmacSecret() {
        return hmacSecret == null ? null : hmacSecret.clone();
    }

    /** The public keys (and HMAC keys) configured as a JWK set, or {@code null}. */
    public JWKSet keys() {
        return keys;
    }

    /** The URL of a JWK set fetched, cached and refreshed on an unknown key id, or {@code null}. */
    public URI jwksUrl() {
        return jwksUrl;
    }

    public Duration jwksCacheTime() {
        return jwksCacheTime;
    }

    public Duration jwksMinRefreshInterval() {
        return jwksMinRefreshInterval;
    }

    public Duration jwksTimeout() {
        return jwksTimeout;
    }

    public Set<JWSAlgorithm> algorithms() {
        return algorithms;
    }

    /** The required {@code iss}, or {@code null} when not checked. */
    public String issuer() {
        return issuer;
    }

    /** The audience that {@code aud} must contain, or {@code null} when not checked. */
    public String audience() {
        return audience;
    }

    public Duration clockSkew() {
        return clockSkew;
    }

    public Clock clock() {
        return clock;
    }

    public int maxTokenLength() {
        return maxTokenLength;
    }

    /** Channel patterns every authenticated session may subscribe to and publish on, whatever its claims. */
    public List<String> publicChannels() {
        return publicChannels;
    }

    public Duration refreshLead() {
        return refreshLead;
    }

    public Duration refreshGrace() {
        return refreshGrace;
    }

    /** How often deadlines are checked; {@link Duration#ZERO} when only {@link JwtAuthentication#sweep()} checks them. */
    public Duration sweepInterval() {
        return sweepInterval;
    }

    @Override
    public String toString() {
        // Never the secret.
        return "JwtConfig[sources=" + tokenSources + ", hmac=" + (hmacSecret != null) + ", keys="
                + (keys == null ? 0 : keys.size()) + ", jwks=" + jwksUrl + ", algorithms=" + algorithms
                + ", iss=" + issuer + ", aud=" + audience + ", skew=" + clockSkew + ", refreshLead=" + refreshLead
                + ", grace=" + refreshGrace + "]";
    }

    /** Builds a {@link JwtConfig}; not thread-safe. */
    public static final class Builder {
        private List<TokenSource> tokenSources = List.of(TokenSource.ext("token"));
        private byte[] hmacSecret;
        private JWKSet keys;
        private URI jwksUrl;
        private Duration jwksCacheTime = Duration.ofMinutes(5);
        private Duration jwksMinRefreshInterval = Duration.ofSeconds(30);
        private Duration jwksTimeout = Duration.ofSeconds(5);
        private Set<JWSAlgorithm> algorithms = DEFAULT_ALGORITHMS;
        private String issuer;
        private String audience;
        private Duration clockSkew = Duration.ofSeconds(60);
        private Clock clock = Clock.systemUTC();
        private int maxTokenLength = 8192;
        private List<String> publicChannels = List.of();
        private Duration refreshLead = Duration.ofSeconds(60);
        private Duration refreshGrace = Duration.ofSeconds(30);
        private Duration sweepInterval = Duration.ofSeconds(1);

        private Builder() {
        }

        /** Where the token is read from, tried in order (default: {@code TokenSource.ext("token")}). */
        public Builder tokenSources(TokenSource... sources) {
            if (sources.length == 0) {
                throw new IllegalArgumentException("at least one token source is needed");
            }
            this.tokenSources = List.of(sources);
            return this;
        }

        /** The HS256 shared secret: at least 32 bytes, as RFC 7518 requires. */
        public Builder hmacSecret(byte[] secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.length < 32) {
                throw new IllegalArgumentException("an HS256 secret needs at least 32 bytes, got " + secret.length);
            }
            this.hmacSecret = secret.clone();
            return this;
        }

        /** {@link #hmacSecret(byte[])} with the UTF-8 bytes of {@code secret}. */
        public Builder hmacSecret(String secret) {
            return hmacSecret(secret.getBytes(StandardCharsets.UTF_8));
        }

        /** Verification keys (RSA, EC P-256, OKP Ed25519 public keys, or symmetric keys), chosen by {@code kid} and algorithm. */
        public Builder keys(JWKSet keys) {
            Objects.requireNonNull(keys, "keys");
            for (JWK key : keys.getKeys()) {
                if (key.isPrivate() && !(key instanceof OctetSequenceKey)) {
                    throw new IllegalArgumentException("a private key was given where a public one is enough: " + key.getKeyID());
                }
            }
            this.keys = keys;
            return this;
        }

        /** A JWK set served over HTTP(S), fetched on first use, cached and fetched again for an unknown {@code kid}. */
        public Builder jwksUrl(URI url) {
            Objects.requireNonNull(url, "url");
            if (!"https".equals(url.getScheme()) && !"http".equals(url.getScheme())) {
                throw new IllegalArgumentException("a JWKS URL is http or https: " + url);
            }
            this.jwksUrl = url;
            return this;
        }

        public Builder jwksCacheTime(Duration time) {
            this.jwksCacheTime = positive(time, "jwksCacheTime");
            return this;
        }

        public Builder jwksMinRefreshInterval(Duration interval) {
            this.jwksMinRefreshInterval = positive(interval, "jwksMinRefreshInterval");
            return this;
        }

        public Builder jwksTimeout(Duration timeout) {
            this.jwksTimeout = positive(timeout, "jwksTimeout");
            return this;
        }

        /** The accepted signature algorithms, a subset of {@link #DEFAULT_ALGORITHMS}. */
        public Builder algorithms(Set<JWSAlgorithm> algorithms) {
            if (algorithms.isEmpty() || !DEFAULT_ALGORITHMS.containsAll(algorithms)) {
                throw new IllegalArgumentException("algorithms must be a non-empty subset of " + DEFAULT_ALGORITHMS + ": " + algorithms);
            }
            this.algorithms = Set.copyOf(algorithms);
            return this;
        }

        public Builder issuer(String issuer) {
            this.issuer = issuer;
            return this;
        }

        public Builder audience(String audience) {
            this.audience = audience;
            return this;
        }

        public Builder clockSkew(Duration skew) {
            Objects.requireNonNull(skew, "skew");
            if (skew.isNegative()) {
                throw new IllegalArgumentException("clockSkew must not be negative: " + skew);
            }
            this.clockSkew = skew;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder maxTokenLength(int length) {
            if (length < 64) {
                throw new IllegalArgumentException("maxTokenLength too small: " + length);
            }
            this.maxTokenLength = length;
            return this;
        }

        /** Channel patterns ({@code *} and {@code **} wildcards) open to every authenticated session. */
        public Builder publicChannels(String... patterns) {
            List<String> list = new ArrayList<>();
            for (String pattern : patterns) {
                if (!ChannelPatterns.isValid(pattern)) {
                    throw new IllegalArgumentException("not a channel pattern: " + pattern);
                }
                list.add(pattern);
            }
            this.publicChannels = List.copyOf(list);
            return this;
        }

        public Builder refreshLead(Duration lead) {
            this.refreshLead = positive(lead, "refreshLead");
            return this;
        }

        public Builder refreshGrace(Duration grace) {
            Objects.requireNonNull(grace, "grace");
            if (grace.isNegative()) {
                throw new IllegalArgumentException("refreshGrace must not be negative: " + grace);
            }
            this.refreshGrace = grace;
            return this;
        }

        /** How often deadlines are checked; {@link Duration#ZERO} for never (a test calling {@link JwtAuthentication#sweep()}). */
        public Builder sweepInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("sweepInterval must not be negative: " + interval);
            }
            this.sweepInterval = interval;
            return this;
        }

        public JwtConfig build() {
            if (hmacSecret == null && keys == null && jwksUrl == null) {
                throw new IllegalStateException("no key: set hmacSecret, keys or jwksUrl");
            }
            return new JwtConfig(this);
        }

        private static Duration positive(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isZero() || duration.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive: " + duration);
            }
            return duration;
        }
    }
}
