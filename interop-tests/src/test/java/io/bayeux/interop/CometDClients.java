package io.bayeux.interop;

import jakarta.websocket.ContainerProvider;
import jakarta.websocket.WebSocketContainer;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * CometD 8's Java clients for one test, unmodified: over WebSocket (Jakarta WebSocket on Tyrus)
 * or long-polling (Jetty's HttpClient). Closing disconnects them and stops what they use.
 */
final class CometDClients implements AutoCloseable {
    enum Transport { WEBSOCKET, LONG_POLLING }

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<HttpClient> httpClients = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();

    /** A new client of {@code url}, not handshaken. */
    BayeuxClient newClient(String url, Transport transport) throws Exception {
        ClientTransport clientTransport;
        if (transport == Transport.WEBSOCKET) {
            WebSocketContainer container = ContainerProvider.getWebSocketContainer();
            clientTransport = new WebSocketTransport(new HashMap<>(), scheduler, container);
        } else {
            HttpClient httpClient = new HttpClient();
            httpClient.start();
            httpClients.add(httpClient);
            clientTransport = new JettyHttpClientTransport(new HashMap<>(), httpClient);
        }
        BayeuxClient client = new BayeuxClient(url, scheduler, clientTransport);
        clients.add(client);
        return client;
    }

    @Override
    public void close() throws Exception {
        for (BayeuxClient client : clients) {
            client.disconnect(2000);
        }
        for (HttpClient httpClient : httpClients) {
            httpClient.stop();
        }
        scheduler.shutdownNow();
    }
}
