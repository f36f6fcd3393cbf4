package io.bayeux.interop;

import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSession;

import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The client side of Salesforce's Streaming API {@code replay} extension, for CometD's Java
 * client, written the way Salesforce's EMP-Connector writes its {@code ReplayExtension} (and
 * CometD's replay demo for Salesforce its {@code CometDReplayExtension}), so that the tests meet
 * the server as those clients do:
 * <ul>
 *   <li>every handshake carries {@code ext: {replay: true}}, and replay counts as supported only
 *       when the handshake reply's {@code ext.replay} is {@code true};</li>
 *   <li>while supported, every {@code /meta/subscribe} carries the whole map of channels to
 *       replay ids ({@code ext: {replay: {"/event/a": -1, "/event/b": 42}}}), not only the
 *       channel it subscribes to;</li>
 *   <li>every received message's {@code data.event.replayId} (a JSON integer, read as a
 *       {@code Long}) becomes its channel's entry in the map, so that a later subscribe resumes
 *       after it.</li>
 * </ul>
 * The application owns the map: it puts a channel's starting id ({@code -1}, {@code -2} or a
 * remembered id) before subscribing, as EMP-Connector's {@code subscribe(topic, replayFrom, ...)} does.
 *
 * <p>Thread-safe: the map is concurrent and {@link #supported} atomic, as CometD calls extensions
 * from its transport threads.
 */
final class ReplayExtension implements ClientSession.Extension {
    static final String EXTENSION_NAME = "replay";
    private static final String EVENT_KEY = "event";
    private static final String REPLAY_ID_KEY = "replayId";

    private final ConcurrentMap<String, Long> dataMap;
    private final AtomicBoolean supported = new AtomicBoolean();

    ReplayExtension(ConcurrentMap<String, Long> dataMap) {
        this.dataMap = dataMap;
    }

    /** Whether the last handshake reply said {@code ext.replay: true}. */
    boolean isSupported() {
        return supported.get();
    }

    @Override
    public boolean rcv(ClientSession session, Message.Mutable message) {
        Long replayId = replayIdOf(message);
        if (supported.get() && replayId != null) {
            dataMap.put(topicWithoutQueryString(message.getChannel()), replayId);
        }
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        if (Channel.META_HANDSHAKE.equals(message.getChannel())) {
            Map<String, Object> ext = message.getExt(false);
            supported.set(ext != null && Boolean.TRUE.equals(ext.get(EXTENSION_NAME)));
        }
        return true;
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        switch (message.getChannel()) {
            case Channel.META_HANDSHAKE -> message.getExt(true).put(EXTENSION_NAME, Boolean.TRUE);
            case Channel.META_SUBSCRIBE -> {
                if (supported.get()) {
                    message.getExt(true).put(EXTENSION_NAME, dataMap);
                }
            }
            default -> {
            }
        }
        return true;
    }

    /**
     * {@code data.event.replayId}, or null when the message has none. EMP-Connector casts it to
     * {@code Long}: an id sent as a JSON string or a fraction would fail there, so it is not
     * taken here either (the tests check its type on the received message).
     */
    static Long replayIdOf(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        if (data != null && data.get(EVENT_KEY) instanceof Map<?, ?> event && event.get(REPLAY_ID_KEY) instanceof Long id) {
            return id;
        }
        return null;
    }

    private static String topicWithoutQueryString(String fullTopic) {
        return fullTopic.split("\\?")[0];
    }
}
