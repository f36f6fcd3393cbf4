package io.bayeux.examples.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The Spring chat example with the JavaScript clients under Node: this project's
 * ({@code js-client}) and CometD's, each over WebSocket and long-polling ({@code src/test/node},
 * run by {@link NodeTests}).
 */
@SpringBootTest(classes = SpringChatApplication.class, properties = {"bayeux.port=0", "chat.max-length=20"})
class SpringChatNodeIT {
    @Value("${local.bayeux.port}")
    int port;

    @Test
    void theJavaScriptClientsChatOverBothTransports() throws Exception {
        NodeTests.run("src/test/node/", port, 4);
    }
}
