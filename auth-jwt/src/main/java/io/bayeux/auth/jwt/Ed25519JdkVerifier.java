package io.bayeux.auth.jwt;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.X509EncodedKeySpec;
import java.util.Set;

/**
 * Verifies EdDSA (Ed25519) signatures with the JDK's own {@code Ed25519} provider. Nimbus's
 * {@code Ed25519Verifier} needs Google Tink (and its protobuf) on the class path; the JDK has
 * done Ed25519 since 15, so this adapter keeps that dependency out. Immutable and thread-safe.
 */
final class Ed25519JdkVerifier implements JWSVerifier {
    /** The DER prefix of an X.509 SubjectPublicKeyInfo for an Ed25519 key (OID 1.3.101.112), before its 32 raw bytes. */
    private static final byte[] X509_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

    private final PublicKey publicKey;
    private final JCAContext jcaContext = new JCAContext();

    Ed25519JdkVerifier(OctetKeyPair key) throws JOSEException {
        if (!Curve.Ed25519.equals(key.getCurve())) {
            throw new JOSEException("not an Ed25519 key: " + key.getCurve());
        }
        byte[] x = key.getDecodedX();
        if (x.length != 32) {
            throw new JOSEException("an Ed25519 public key has 32 bytes, not " + x.length);
        }
        byte[] encoded = new byte[X509_PREFIX.length + x.length];
        System.arraycopy(X509_PREFIX, 0, encoded, 0, X509_PREFIX.length);
        System.arraycopy(x, 0, encoded, X509_PREFIX.length, x.length);
        try {
            this.publicKey = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(encoded));
        } catch (GeneralSecurityException x509) {
            throw new JOSEException("bad Ed25519 key: " + x509.getMessage(), x509);
        }
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
        return Set.of(JWSAlgorithm.EdDSA);
    }

    @Override
    public JCAContext getJCAContext() {
        return jcaContext;
    }

    @Override
    public boolean verify(JWSHeader header, byte[] signingInput, Base64URL signature) throws JOSEException {
        if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm())) {
            throw new JOSEException("not EdDSA: " + header.getAlgorithm());
        }
        try {
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(publicKey);
            verifier.update(signingInput);
            return verifier.verify(signature.decode());
        } catch (SignatureException malformed) {
            return false;
        } catch (GeneralSecurityException x) {
            throw new JOSEException("Ed25519 verification failed: " + x.getMessage(), x);
        }
    }
}
