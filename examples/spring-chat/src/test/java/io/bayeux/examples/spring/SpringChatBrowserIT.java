package io.bayeux.examples.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The Spring chat's page in Chromium (Debian's {@code /usr/bin/chromium}, driven by
 * playwright-core; {@code src/test/browser}, run by {@link NodeTests}) with token authentication
 * on: the page gets its token from the example's {@code /token}, sends it in its handshake, chats
 * within what the token's claims allow, and fetches a new token when the server asks (tokens of
 * 65 s, asked for 62 s before they expire: a few seconds after each handshake or refresh). {@code -Djs.browser.skip=true} leaves it out.
 */
@SpringBootTest(classes = SpringChatApplication.class, properties = {"bayeux.port=0",
        "bayeux.token.secret=" + SpringChatBrowserIT.SECRET, "chat.token-lifetime=65s", "bayeux.token.refresh-lead=62s"})
class SpringChatBrowserIT {
    static final String SECRET = "a secret of the Spring chat's browser test, 32+ bytes";

    @Value("${local.bayeux.port}")
    int port;

    @Test
    void twoPagesChatWithTokensTheyFetchedThemselves() throws Exception {
        NodeTests.run("src/test/browser/", port, 3);
    }
}
