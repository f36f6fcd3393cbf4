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
    /** A channel whose next batch is followed at once by a cut, or null. */
    private volatile String cutAfter;

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
        List<String> channels = messages.stream().map(Message::getChannel).toList();
        sends.add(channels);
        delegate.send(messages);
        String cut = cutAfter;
        if (cut != null && channels.contains(cut)) {
            cutAfter = null;
            delegate.abort();
        }
    }

    /** The next batch with a message on {@code channel} loses its connection right after it is sent. */
    void cutAfterSending(String channel) {
        cutAfter = channel;
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
