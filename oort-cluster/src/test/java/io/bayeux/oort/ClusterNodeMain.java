package io.bayeux.oort;

import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.oort.seti.Seti;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A cluster node in its own JVM, for the tests that kill nodes: observes {@code /chat/**},
 * associates the publisher of {@code /service/login {"user": ...}} with Seti, sends
 * {@code /service/send {"to": user, "text": ...}} to that user on {@code /private}, and prints its
 * events, one per line: {@code READY <id>}, {@code JOINED <url> <id>}, {@code LEFT <url> <id>},
 * {@code PRESENCE+ <user> <url>}, {@code PRESENCE- <user> <url>}.
 *
 * <pre>ClusterNodeMain PORT SECRET FAILURE_MS [PEER_URL...]</pre>
 *
 * <p>{@code -Doort.links=long-polling} makes its links use long-polling only.
 */
public final class ClusterNodeMain {
    private ClusterNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        OortConfig config = OortConfig.builder().secret(args[1]).failureTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .maxBackoff(Duration.ofSeconds(1)).channel("/chat/**").peers(Arrays.asList(args).subList(3, args.length))
                .clientWebSocket(!"long-polling".equals(System.getProperty("oort.links"))).build();
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(port).build().start();
        Oort oort = config.newOort(server.bayeux(), server.uri().toString());
        oort.addCometListener(new CometListener() {
            @Override
            public void cometJoined(Event event) {
                print("JOINED " + event.cometURL() + " " + event.cometId());
            }

            @Override
            public void cometLeft(Event event) {
                print("LEFT " + event.cometURL() + " " + event.cometId());
            }
        });
        oort.start();
        Seti seti = new Seti(oort);
        seti.addPresenceListener(new Seti.PresenceListener() {
            @Override
            public void presenceAdded(Event event) {
                print("PRESENCE+ " + event.userId() + " " + event.oortURL());
            }

            @Override
            public void presenceRemoved(Event event) {
                print("PRESENCE- " + event.userId() + " " + event.oortURL());
            }
        });
        seti.start();
        ServerChannel login = server.bayeux().createChannelIfAbsent("/service/login", ConfigurableServerChannel.Initializer.persistent()).getReference();
        login.addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            Map<String, Object> data = message.getDataAsMap();
            if (from != null && data != null && data.get("user") instanceof String user) {
                seti.associate(user, from);
            }
            return true;
        });
        ServerChannel send = server.bayeux().createChannelIfAbsent("/service/send", ConfigurableServerChannel.Initializer.persistent()).getReference();
        send.addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            Map<String, Object> data = message.getDataAsMap();
            if (data != null && data.get("to") instanceof String to) {
                seti.sendMessage(to, "/private", data.get("text"));
            }
            return true;
        });
        config.observePeers(oort);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            seti.stop();
            oort.stop();
            server.stop();
            stopped.countDown();
        }));
        print("READY " + oort.getId() + " " + oort.getURL());
        stopped.await();
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static List<String> usage() {
        return List.of("ClusterNodeMain PORT SECRET FAILURE_MS [PEER_URL...]");
    }
}
