package io.bayeux.oort.object;

/**
 * One node's part of an {@link OortObject}: the node's URL, the object's name, the value and
 * its version (from the clock at the object's start, plus one per change of the owner). Immutable.
 *
 * @param <T> the type of the value
 */
public final class Info<T> {
    /** The message fields, as CometD 8 names them. */
    public static final String VERSION_FIELD = "oort.info.version";
    public static final String OORT_URL_FIELD = "oort.info.url";
    public static final String NAME_FIELD = "oort.info.name";
    public static final String OBJECT_FIELD = "oort.info.object";
    public static final String TYPE_FIELD = "oort.info.type";
    public static final String ACTION_FIELD = "oort.info.action";
    public static final String PEER_FIELD = "oort.info.peer";

    private final String localURL;
    private final String oortURL;
    private final String name;
    private final T object;
    private final long version;

    Info(String localURL, String oortURL, String name, T object, long version) {
        this.localURL = localURL;
        this.oortURL = oortURL;
        this.name = name;
        this.object = object;
        this.version = version;
    }

    /** The URL of the node that owns this part. */
    public String getOortURL() {
        return oortURL;
    }

    public String getName() {
        return name;
    }

    public T getObject() {
        return object;
    }

    public long getVersion() {
        return version;
    }

    /** Whether this part is this node's own. */
    public boolean isLocal() {
        return localURL.equals(oortURL);
    }

    @Override
    public String toString() {
        return "Info[" + name + "/" + version + " of " + oortURL + ": " + object + "]";
    }
}
