package io.bayeux.transport;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Where the server's TLS certificate comes from: PEM files, a key store, or a self-signed
 * certificate made at start for development.
 */
public final class TlsConfig {
    private final SslContextFactory factory;

    private TlsConfig(SslContextFactory factory) {
        this.factory = factory;
    }

    /** A certificate chain and a PKCS#8 private key, both PEM. */
    public static TlsConfig pem(Path certificateChain, Path privateKey) {
        Objects.requireNonNull(certificateChain, "certificateChain");
        Objects.requireNonNull(privateKey, "privateKey");
        return new TlsConfig(() -> SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile()).build());
    }

    /** A PKCS12 or JKS key store holding one private key entry. */
    public static TlsConfig keyStore(Path keyStore, char[] password) {
        Objects.requireNonNull(keyStore, "keyStore");
        char[] secret = password.clone();
        return new TlsConfig(() -> {
            KeyStore store = KeyStore.getInstance(keyStore.toString().endsWith(".jks") ? "JKS" : "PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, secret);
            }
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, secret);
            return SslContextBuilder.forServer(keys).build();
        });
    }

    /**
     * A self-signed certificate for {@code localhost} and {@code 127.0.0.1}, made at start with
     * the JDK's {@code keytool}: for development and tests only, browsers will warn.
     */
    public static TlsConfig selfSigned() {
        return new TlsConfig(() -> {
            Path dir = Files.createTempDirectory("bayeux-tls");
            Path store = dir.resolve("self-signed.p12");
            char[] password = "changeit".toCharArray();
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "bayeux", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
                    "-validity", "30", "-storetype", "PKCS12", "-keystore", store.toString(),
                    "-storepass", new String(password), "-keypass", new String(password)));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("keytool failed: " + new String(output));
            }
            try {
                return keyStore(store, password).factory.create();
            } finally {
                Files.deleteIfExists(store);
                Files.deleteIfExists(dir);
            }
        });
    }

    SslContext newSslContext() {
        try {
            return factory.create();
        } catch (IOException | GeneralSecurityException | InterruptedException x) {
            if (x instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("Cannot set up TLS: " + x.getMessage(), x);
        }
    }

    @FunctionalInterface
    private interface SslContextFactory {
        SslContext create() throws IOException, GeneralSecurityException, InterruptedException;
    }
}
