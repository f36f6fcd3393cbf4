package io.bayeux.auth.jwt;

/**
 * Why a token was refused: a {@link #reason()} code sent to the client in the Bayeux error
 * ({@code 403:token_expired:handshake_denied}), and a message safe to log, which names the
 * token's header and claims but never its signature nor a secret.
 */
public final class TokenRejectedException extends Exception {
    /** No token where one was looked for. */
    public static final String MISSING = "token_missing";
    /** Longer than {@link JwtConfig#maxTokenLength()}. */
    public static final String TOO_LARGE = "token_too_large";
    /** Not a compact JWS with a JSON header and claims. */
    public static final String MALFORMED = "token_malformed";
    /** {@code alg} is {@code none}, or not one of {@link JwtConfig#algorithms()}. */
    public static final String ALGORITHM = "token_algorithm_refused";
    /** No configured or published key fits the header's {@code kid} and {@code alg}. */
    public static final String KEY_UNKNOWN = "token_key_unknown";
    /** The JWKS URL could not be read. */
    public static final String KEYS_UNAVAILABLE = "token_keys_unavailable";
    /** No key verifies the signature. */
    public static final String SIGNATURE = "token_signature_invalid";
    /** No {@code exp} claim. */
    public static final String EXPIRY_MISSING = "token_expiry_missing";
    /** {@code exp} has passed, beyond the clock skew. */
    public static final String EXPIRED = "token_expired";
    /** {@code nbf} is still ahead, beyond the clock skew. */
    public static final String NOT_YET_VALID = "token_not_yet_valid";
    /** {@code iss} is not {@link JwtConfig#issuer()}. */
    public static final String ISSUER = "token_issuer_invalid";
    /** {@code aud} does not contain {@link JwtConfig#audience()}. */
    public static final String AUDIENCE = "token_audience_invalid";
    /** No {@code sub} claim, or (on refresh) another one than the session's. */
    public static final String SUBJECT = "token_subject_invalid";
    /** {@code subscribe} or {@code publish} is not an array of channel patterns. */
    public static final String CLAIMS = "token_claims_invalid";

    private final String reason;

    public TokenRejectedException(String reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    /** The reason code, one of this class's constants. */
    public String reason() {
        return reason;
    }
}
