package io.bayeux.server.internal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A server with default settings (but connectGather off, see {@link ManualScheduler#config()}) on a hand-driven clock, started before and stopped after each test. */
abstract class ServerTestSupport {
    protected final ManualScheduler scheduler = new ManualScheduler();
    protected BayeuxServerImpl server;

    @BeforeEach
    void startServer() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
    }

    @AfterEach
    void stopServer() {
        server.stop();
    }
}
