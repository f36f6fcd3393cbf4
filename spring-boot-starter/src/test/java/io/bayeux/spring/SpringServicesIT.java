package io.bayeux.spring;

import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Spring Boot application on the auto-configured server, with this project's Java client over
 * both transports: a {@code @Service} bean answers remote calls, its subscriptions and listeners
 * hear clients, and it has what Spring and the processor inject before its {@code @PostConstruct}.
 */
@SpringBootTest(classes = GreeterApplication.class, properties = "bayeux.port=0")
class SpringServicesIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Value("${" + BayeuxServerLifecycle.PORT_PROPERTY + "}")
    int port;
    @Autowired
    NettyBayeuxServer server;
    @Autowired
    BayeuxServer bayeux;
    @Autowired
    GreeterService greeter;

    private final ClientConfig config = ClientConfig.builder().build();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(BayeuxClient::close);
    }

    private BayeuxClient connected(String url, String transportName) throws InterruptedException {
        ClientTransport transport = transportName.equals(WebSocketTransport.NAME) ? new WebSocketTransport(config) : new LongPollingTransport(config);
        BayeuxClient client = new BayeuxClient(url, config, transport);
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(transportName, client.getTransportName());
        return client;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aServiceBeanAnswersRemoteCallsAndHearsItsSubscriptions(String transport) throws Exception {
        assertEquals(server.port(), port, "the environment holds the bound port");
        BayeuxClient client = connected("http://127.0.0.1:" + port + "/cometd", transport);

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        client.remoteCall("greet", "alice", answers::add);
        Message answer = next(answers);
        assertTrue(answer.isSuccessful(), answer::toString);
        assertEquals("hello, alice", answer.getData());

        BlockingQueue<Message> greetings = new LinkedBlockingQueue<>();
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        client.getChannel("/greet/out").subscribe((channel, message) -> greetings.add(message), subscribed::add);
        assertTrue(next(subscribed).isSuccessful());
        client.getChannel("/greet/in").publish("bob-" + transport);
        assertEquals("hello, bob-" + transport, next(greetings).getData());
        assertTrue(greeter.events.contains("heard bob-" + transport), greeter.events::toString);
    }

    @Test
    void theServiceIsRegisteredBeforeItsPostConstructRuns() {
        assertEquals("postConstruct session=true bayeux=true listening=true", greeter.events.get(0));
        assertTrue(bayeux.getChannel("/greet/**").isPersistent(), "@Configure ran");
    }

    @Test
    void closingTheContextStopsTheServerThenDeregistersTheService() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GreeterApplication.class)
                .properties("bayeux.port=0").run();
        GreeterService service;
        int bound;
        BayeuxServer closed;
        try {
            service = context.getBean(GreeterService.class);
            closed = context.getBean(BayeuxServer.class);
            bound = context.getEnvironment().getRequiredProperty(BayeuxServerLifecycle.PORT_PROPERTY, Integer.class);
            connected("http://127.0.0.1:" + bound + "/cometd", "websocket");
            assertNotNull(closed.getSession(service.session.getId()));
        } finally {
            context.close();
        }
        // The context stops the server (a lifecycle bean) before it destroys beans: the sessions are gone by then.
        assertEquals("preDestroy session=false", service.events.get(service.events.size() - 1), "@PreDestroy ran");
        assertFalse(service.session.isHandshook(), "the service's session is disconnected");
        assertEquals(List.of(), closed.getChannel("/greet/in").getListeners(), "its listeners are removed");
        assertNull(closed.getSession(service.session.getId()));
        assertThrows(IOException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", bound), 2000);
            }
        }, "the port is closed");
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
