package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.CookieJar;
import io.netty.channel.EventLoopGroup;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport that delegates to a real one and records, for the tests, the channels of every
 * batch handed to {@link #send} and how often {@link #abort} was called; {@link #cut()} drops
 * the connections as a network failure would.
 */
final class RecordingTransport implements ClientTransport {
    private final ClientTransport delegate;
    /** The channels of each batch sent, in order. */
    final List<List<String>> sends = new CopyOnWriteArrayList<>();
    final AtomicInteger aborts = new AtomicInteger();

    RecordingTransport(ClientTransport delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
        delegate.init(url, cookies, group, listener);
    }

    @Override
    public void send(List<Message.Mutable> messages) {
        sends.add(messages.stream().map(Message::getChannel).toList());
        delegate.send(messages);
    }

    /** The batches sent that carried at least one message on {@code channel}. */
    List<List<String>> sendsWith(String channel) {
        return sends.stream().filter(batch -> batch.contains(channel)).toList();
    }

    /** Drops the connections, as a network failure would. */
    void cut() {
        delegate.abort();
    }

    @Override
    public void abort() {
        aborts.incrementAndGet();
        delegate.abort();
    }

    @Override
    public void terminate() {
        delegate.terminate();
    }
}
