package io.bayeux.auth.jwt;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;

/** Keys of every supported kind, and tokens signed with them, for the tests. */
final class Tokens {
    static final String SECRET = "a-demo-secret-of-at-least-32-bytes!!";

    final RSAKey rsa;
    final ECKey ec;
    final KeyPair ed;
    final OctetKeyPair edPublic;

    Tokens() {
        try {
            rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
            ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
            ed = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            byte[] encoded = ed.getPublic().getEncoded();
            edPublic = new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length)))
                    .keyID("ed-1").build();
        } catch (JOSEException | GeneralSecurityException x) {
            throw new IllegalStateException(x);
        }
    }

    /** The public halves of the RSA, EC and Ed25519 keys. */
    JWKSet publicKeys() {
        return new JWKSet(List.<JWK>of(rsa.toPublicJWK(), ec.toPublicJWK(), edPublic));
    }

    /** Claims for {@code sub}, valid from {@code now} for ten minutes. */
    static JWTClaimsSet.Builder claims(String sub, Instant now) {
        return new JWTClaimsSet.Builder().subject(sub).issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(600)));
    }

    static String hs256(JWTClaimsSet claims) {
        return hs256(claims, SECRET);
    }

    static String hs256(JWTClaimsSet claims, String secret) {
        return sign(new JWSHeader(JWSAlgorithm.HS256), claims, () -> new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
    }

    String rs256(JWTClaimsSet claims) {
        return sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(rsa.getKeyID()).build(), claims, () -> new RSASSASigner(rsa));
    }

    String es256(JWTClaimsSet claims) {
        return sign(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(ec.getKeyID()).build(), claims, () -> new ECDSASigner(ec));
    }

    /** An EdDSA token signed by the JDK (nimbus's own Ed25519 signer needs Tink). */
    String eddsa(JWTClaimsSet claims) {
        String input = part("{\"alg\":\"EdDSA\",\"kid\":\"" + edPublic.getKeyID() + "\"}") + "." + part(claims.toString());
        try {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(ed.getPrivate());
            signature.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + Base64URL.encode(signature.sign());
        } catch (GeneralSecurityException x) {
            throw new IllegalStateException(x);
        }
    }

    /** An unsecured token ({@code alg: none}), with an empty signature. */
    static String none(JWTClaimsSet claims) {
        return part("{\"alg\":\"none\"}") + "." + part(claims.toString()) + ".";
    }

    private static String part(String json) {
        return Base64URL.encode(json.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private interface SignerFactory {
        com.nimbusds.jose.JWSSigner get() throws JOSEException;
    }

    private static String sign(JWSHeader header, JWTClaimsSet claims, SignerFactory signer) {
        try {
            SignedJWT jwt = new SignedJWT(header, claims);
            jwt.sign(signer.get());
            return jwt.serialize();
        } catch (JOSEException x) {
            throw new IllegalStateException(x);
        }
    }
}
