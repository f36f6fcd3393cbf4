package io.bayeux.client;

import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.bayeux.server.ServerChannel;
import org.cometd.bayeux.server.ServerMessage;
import org.cometd.server.BayeuxServerImpl;
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

import java.net.URI;

/**
 * CometD's own server (8.x, on Jetty 12), embedded for interoperability tests: its WebSocket
 * transport (Jetty's) and its long-polling transport on {@code /cometd} of an ephemeral
 * loopback port, and an echo service on {@code /service/echo} that answers with the caller's
 * message id and data, as a CometD {@code @RemoteCall} does. Public, in this module's test-jar,
 * for interop-tests too.
 */
public final class CometDServer implements AutoCloseable {
    private final Server jetty = new Server();
    private final BayeuxServerImpl bayeux = new BayeuxServerImpl();
    private final ServerConnector connector = new ServerConnector(jetty);
    /** How long long-polls are held, or -1 for CometD's default. */
    private final long timeoutMillis;

    /** Long-polls held as long as CometD's default. */
    public CometDServer() {
        this.timeoutMillis = -1;
    }

    /** Long-polls held {@code timeoutMillis}, so that a test sees several connect cycles. */
    public CometDServer(long timeoutMillis) {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeoutMillis < 0: " + timeoutMillis);
        }
        this.timeoutMillis = timeoutMillis;
    }

    public CometDServer start() throws Exception {
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        jetty.setHandler(context);
        context.insertHandler(WebSocketUpgradeHandler.from(jetty, context));

        if (timeoutMillis >= 0) {
            bayeux.setOption("timeout", timeoutMillis);
        }
        bayeux.setOption(BayeuxServerImpl.TRANSPORTS_OPTION, JettyWebSocketTransport.class.getName() + "," + JSONHttpTransport.class.getName());
        bayeux.setOption(AbstractWebSocketTransport.COMETD_URL_MAPPING_OPTION, "/cometd/*");
        bayeux.setOption(Context.class.getName(), context.getContext());
        context.setAttribute(BayeuxServer.ATTRIBUTE, bayeux);
        ServletHolder cometd = new ServletHolder(CometDServlet.class);
        cometd.setAsyncSupported(true);
        cometd.setInitOrder(1);
        context.addServlet(cometd, "/cometd/*");
        jetty.start();

        bayeux.createChannelIfAbsent("/service/echo").getReference().addListener(new ServerChannel.MessageListener() {
            @Override
            public boolean onMessage(org.cometd.bayeux.server.ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
                ServerMessage.Mutable reply = bayeux.newMessage();
                reply.setChannel(channel.getId());
                reply.setId(message.getId());
                reply.setSuccessful(true);
                reply.setData(message.getData());
                from.deliver(null, reply, org.cometd.bayeux.Promise.noop());
                return true;
            }
        });
        return this;
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/cometd");
    }

    public BayeuxServerImpl bayeux() {
        return bayeux;
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }
}
