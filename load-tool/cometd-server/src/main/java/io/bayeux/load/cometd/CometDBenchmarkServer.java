package io.bayeux.load.cometd;

import org.cometd.bayeux.Promise;
import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.bayeux.server.ServerChannel;
import org.cometd.bayeux.server.ServerMessage;
import org.cometd.bayeux.server.ServerSession;
import org.cometd.server.BayeuxServerImpl;
import org.cometd.server.ServerSessionImpl;
import org.cometd.server.ext.AcknowledgedMessagesExtension;
import org.cometd.server.http.JSONHttpTransport;
import org.cometd.server.http.jakarta.CometDServlet;
import org.cometd.server.websocket.common.AbstractWebSocketTransport;
import org.cometd.server.websocket.jetty.JettyWebSocketTransport;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * CometD 8's own server on Jetty 12, set up like the load tool's server ({@code bayeux-load
 * server}) where it matters for the chat benchmark: its WebSocket (Jetty) and long-polling
 * transports on {@code /cometd}, every channel open (CometD's default security policy), a
 * long-poll timeout of 20 s, interval 0, max interval 10 s, the same per-session queue bound,
 * the acknowledged-delivery extension, and the same {@code /service/load/stats} answer
 * (sessions, queued messages, GC counts and time, heap, CPU).
 *
 * <pre>
 * bin/bayeux-load cometd-server [--port 8080] [--host 127.0.0.1] [--max-queue 100000]
 * </pre>
 */
public final class CometDBenchmarkServer implements AutoCloseable {
    public static final int DEFAULT_MAX_QUEUE = 100_000;

    private final Server jetty = new Server();
    private final BayeuxServerImpl bayeux = new BayeuxServerImpl();
    private final ServerConnector connector = new ServerConnector(jetty);

    public CometDBenchmarkServer start(String host, int port, int maxQueue) throws Exception {
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        jetty.setHandler(context);
        context.insertHandler(WebSocketUpgradeHandler.from(jetty, context));

        bayeux.setOption(BayeuxServerImpl.TRANSPORTS_OPTION, JettyWebSocketTransport.class.getName() + "," + JSONHttpTransport.class.getName());
        bayeux.setOption(AbstractWebSocketTransport.COMETD_URL_MAPPING_OPTION, "/cometd/*");
        bayeux.setOption(Context.class.getName(), context.getContext());
        // The same protocol settings as this project's server.
        bayeux.setOption("timeout", 20_000L);
        bayeux.setOption("interval", 0L);
        bayeux.setOption("maxInterval", 10_000L);
        bayeux.setOption("maxQueue", (long) maxQueue);
        context.setAttribute(BayeuxServer.ATTRIBUTE, bayeux);
        ServletHolder cometd = new ServletHolder(CometDServlet.class);
        cometd.setAsyncSupported(true);
        cometd.setInitOrder(1);
        context.addServlet(cometd, "/cometd/*");
        jetty.start();

        bayeux.addExtension(new AcknowledgedMessagesExtension());
        bayeux.createChannelIfAbsent("/service/load/stats").getReference().addListener(new ServerChannel.MessageListener() {
            @Override
            public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
                ServerMessage.Mutable reply = bayeux.newMessage();
                reply.setChannel(channel.getId());
                reply.setId(message.getId());
                reply.setSuccessful(true);
                reply.setData(stats());
                from.deliver(null, reply, Promise.noop());
                return true;
            }
        });
        return this;
    }

    /** The figures the load tool asks for on {@code /service/load/stats}, as this project's server gives them. */
    Map<String, Object> stats() {
        long sessions = 0;
        long queued = 0;
        for (ServerSession session : bayeux.getSessions()) {
            if (!session.isLocalSession()) {
                sessions++;
                if (session instanceof ServerSessionImpl impl) {
                    queued += impl.getQueue().size();
                }
            }
        }
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("sessions", sessions);
        stats.put("queued", queued);
        stats.put("gcCount", gcCount);
        stats.put("gcMillis", gcMillis);
        stats.put("heapUsedBytes", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        // Jetty's buffers are the JDK's direct buffers: the same figure as this project's server gives.
        long direct = 0;
        long buffers = 0;
        for (java.lang.management.BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                direct += pool.getMemoryUsed();
                buffers += pool.getCount();
            }
        }
        stats.put("directBytes", direct);
        stats.put("directBuffers", buffers);
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            stats.put("cpuNanos", os.getProcessCpuTime());
        }
        stats.put("pid", ProcessHandle.current().pid());
        return stats;
    }

    public URI uri() {
        return URI.create("http://" + connector.getHost() + ":" + connector.getLocalPort() + "/cometd");
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 8080;
        int maxQueue = DEFAULT_MAX_QUEUE;
        String usage = "Usage: bayeux-load cometd-server [--port N] [--host ADDRESS] [--max-queue N]";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, usage));
                case "--host" -> host = value(args, ++i, usage);
                case "--max-queue" -> maxQueue = Integer.parseInt(value(args, ++i, usage));
                case "-h", "--help" -> {
                    System.out.println(usage);
                    return;
                }
                default -> {
                    System.err.println("Unknown option " + args[i] + "; " + usage);
                    System.exit(2);
                }
            }
        }
        CometDBenchmarkServer server = new CometDBenchmarkServer().start(host, port, maxQueue);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception x) {
                System.err.println("Stopping: " + x);
            }
            stopped.countDown();
        }, "cometd-server-shutdown"));
        System.out.println("CometD 8 server listening on " + server.uri() + " (pid " + ProcessHandle.current().pid() + "); Ctrl-C stops it.");
        stopped.await();
    }

    private static String value(String[] args, int index, String usage) {
        if (index >= args.length) {
            System.err.println(args[index - 1] + " needs a value; " + usage);
            System.exit(2);
        }
        return args[index];
    }
}
