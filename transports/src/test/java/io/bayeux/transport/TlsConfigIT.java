package io.bayeux.transport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TLS from a key store and from PEM files, both made here with the JDK's keytool. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsConfigIT {
    private static final char[] PASSWORD = "secret".toCharArray();
    private Path dir;
    private Path keyStore;
    private Path certificatePem;
    private Path keyPem;

    @BeforeAll
    void makeCertificates() throws Exception {
        dir = Files.createTempDirectory("bayeux-tls-test");
        keyStore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertTrue(keytool.waitFor(30, TimeUnit.SECONDS) && keytool.exitValue() == 0, output);

        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD);
        }
        PrivateKey key = (PrivateKey) store.getKey("server", PASSWORD);
        Certificate certificate = store.getCertificate("server");
        certificatePem = dir.resolve("server.crt");
        keyPem = dir.resolve("server.key");
        Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
    }

    @AfterAll
    void deleteCertificates() throws Exception {
        for (Path file : List.of(keyStore, certificatePem, keyPem, dir)) {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aKeyStoreServesHttps() throws Exception {
        assertServesHttps(TlsConfig.keyStore(keyStore, PASSWORD));
    }

    @Test
    void pemFilesServeHttps() throws Exception {
        assertServesHttps(TlsConfig.pem(certificatePem, keyPem));
    }

    @Test
    void aWrongKeyStorePasswordFailsTheStartWithAClearMessage() {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0).tls(TlsConfig.keyStore(keyStore, "wrong".toCharArray()));
        NettyBayeuxServer server = builder.build();
        IllegalStateException x = assertThrows(IllegalStateException.class, server::start);
        assertTrue(x.getMessage().startsWith("Cannot set up TLS"), x.getMessage());
        server.stop();
    }

    private static void assertServesHttps(TlsConfig tls) throws Exception {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).tls(tls).build().start();
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, new TrustManager[]{new TrustAll()}, null);
        HttpClient http = HttpClient.newBuilder().sslContext(trustAll).connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\"}]")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("https", server.uri().getScheme());
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("\"successful\":true"), response.body());
        } finally {
            http.shutdownNow();
            server.stop();
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** Trusts any certificate: test only. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

}
