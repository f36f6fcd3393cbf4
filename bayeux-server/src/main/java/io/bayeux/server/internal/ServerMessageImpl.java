package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JsonCodec;

import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The server's message. Once {@linkplain #freeze() frozen} it refuses changes and caches
 * its JSON bytes, so a broadcast is serialized once whatever the number of recipients.
 *
 * <p>Not thread-safe while mutable; safe to share once frozen (the JSON cache is written
 * racily but idempotently: every thread computes the same bytes; the compressed cache once,
 * under this message's monitor).
 */
public class ServerMessageImpl extends HashMapMessage implements ServerMessage.Mutable {
    /** Kept in place of a compressed form when the compressor returned its argument (not worth compressing). */
    private static final byte[] NOT_COMPRESSED = new byte[0];
    private ServerMessage associated;
    private boolean lazy;
    private BayeuxContext bayeuxContext;
    private volatile boolean frozen;
    /** The message as a JSON array of one, once frozen. */
    private volatile byte[] array;
    /**
     * When it arrived from a client ({@link System#nanoTime()}), or 0: set only while a
     * {@code ServerObserver} is installed, before the message is frozen and shared.
     */
    private long arrivedNanos;
    /** What a transport's compressor made of {@link #array} (see {@link #compressArray}), once frozen; written under this. */
    private volatile byte[] compressed;
    /** What a transport's compressor made of this message as an element of a larger array (see {@link #compressElement}); the same. */
    private volatile byte[] compressedElement;

    public ServerMessageImpl() {
    }

    public ServerMessageImpl(Map<String, Object> fields) {
        super(fields);
    }

    @Override
    public ServerMessage getAssociated() {
        return associated;
    }

    @Override
    public void setAssociated(ServerMessage associated) {
        this.associated = associated;
    }

    @Override
    public boolean isLazy() {
        return lazy;
    }

    @Override
    public void setLazy(boolean lazy) {
        checkMutable();
        this.lazy = lazy;
    }

    @Override
    public BayeuxContext getBayeuxContext() {
        return bayeuxContext;
    }

    /** Sets what the network tells about the request that carried this message; not part of its JSON. */
    public void setBayeuxContext(BayeuxContext bayeuxContext) {
        checkMutable();
        this.bayeuxContext = bayeuxContext;
    }

    /** When this message arrived from a client ({@link System#nanoTime()}), or 0 when not measured. */
    public long arrivedNanos() {
        return arrivedNanos;
    }

    /** Notes when this message arrived from a client, for its delivery latency; before it is frozen. */
    void arrivedNanos(long nanos) {
        this.arrivedNanos = nanos;
    }

    @Override
    public boolean isFrozen() {
        return frozen;
    }

    /** Makes this message immutable: from now on it may be shared between recipients and threads. */
    public void freeze() {
        frozen = true;
    }

    /**
     * This message as a JSON array of one, {@code [ {...} ]}: what a frame or response that
     * carries only it holds. Computed by {@code codec} once for a frozen message and shared
     * afterwards: callers must not modify it.
     */
    public byte[] encodeArray(JsonCodec codec) throws JsonCodec.JsonException {
        byte[] result = array;
        if (result == null) {
            byte[] json = codec.encode(this);
            result = new byte[json.length + 2];
            result[0] = '[';
            System.arraycopy(json, 0, result, 1, json.length);
            result[result.length - 1] = ']';
            if (frozen) {
                array = result;
            }
        }
        return result;
    }

    /**
     * {@code compressor} applied to {@code array}, this message's {@link #encodeArray}: for a
     * frozen message computed once, whichever threads ask at the same time, and shared
     * afterwards (a WebSocket broadcast is deflated once for all its subscribers); callers must
     * not modify it. {@code compressor} may return its argument itself (not worth compressing):
     * then every caller gets back the array it passed, which is how it tells.
     */
    public byte[] compressArray(byte[] array, UnaryOperator<byte[]> compressor) {
        return compressOnce(false, array, compressor);
    }

    /**
     * Like {@link #compressArray}, for a compressed form of this message as one element among
     * others (a transport's frame of several messages), kept apart from the whole array's:
     * {@code compressor} is given {@code array} and compresses what lies between its brackets.
     */
    public byte[] compressElement(byte[] array, UnaryOperator<byte[]> compressor) {
        return compressOnce(true, array, compressor);
    }

    private byte[] compressOnce(boolean element, byte[] array, UnaryOperator<byte[]> compressor) {
        if (!frozen) {
            return compressor.apply(array);
        }
        byte[] result = element ? compressedElement : compressed;
        if (result == null) {
            // Once, not racily like the JSON bytes: the compression costs more than the lock.
            synchronized (this) {
                result = element ? compressedElement : compressed;
                if (result == null) {
                    result = compressor.apply(array);
                    if (result == array) {
                        result = NOT_COMPRESSED;
                    }
                    if (element) {
                        compressedElement = result;
                    } else {
                        compressed = result;
                    }
                }
            }
        }
        // "Not compressed" is told by identity with the caller's array: the JSON bytes are cached
        // racily, so another thread may hold an equal array that is not this one.
        return result == NOT_COMPRESSED ? array : result;
    }

    @Override
    public ServerMessage.Mutable copy() {
        ServerMessageImpl copy = new ServerMessageImpl(this);
        copyChild(copy, EXT_FIELD);
        copyChild(copy, ADVICE_FIELD);
        copy.associated = associated;
        copy.lazy = lazy;
        copy.bayeuxContext = bayeuxContext;
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static void copyChild(ServerMessageImpl copy, String field) {
        if (copy.get(field) instanceof Map<?, ?> map) {
            copy.put(field, new HashMap<>((Map<String, Object>) map));
        }
    }

    private void checkMutable() {
        if (frozen) {
            throw new IllegalStateException("Message is frozen: " + this);
        }
    }

    @Override
    public Object put(String key, Object value) {
        checkMutable();
        return super.put(key, value);
    }

    @Override
    public void putAll(Map<? extends String, ?> map) {
        checkMutable();
        super.putAll(map);
    }

    @Override
    public Object remove(Object key) {
        checkMutable();
        return super.remove(key);
    }

    @Override
    public void clear() {
        checkMutable();
        super.clear();
    }
}
