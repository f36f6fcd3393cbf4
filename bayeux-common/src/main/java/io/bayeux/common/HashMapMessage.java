package io.bayeux.common;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;

import java.util.HashMap;
import java.util.Map;

/**
 * A {@link Message.Mutable} backed by a {@link HashMap}: the JSON object as it is, with typed
 * accessors. Not thread-safe.
 */
public class HashMapMessage extends HashMap<String, Object> implements Message.Mutable {
    public HashMapMessage() {
        super(8);
    }

    public HashMapMessage(Map<String, Object> fields) {
        super(fields);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, Object> getAdvice() {
        return get(ADVICE_FIELD) instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    @Override
    public String getChannel() {
        return get(CHANNEL_FIELD) instanceof String s ? s : null;
    }

    @Override
    public ChannelId getChannelId() {
        String channel = getChannel();
        return channel == null ? null : ChannelId.of(channel);
    }

    @Override
    public String getClientId() {
        return get(CLIENT_ID_FIELD) instanceof String s ? s : null;
    }

    @Override
    public Object getData() {
        return get(DATA_FIELD);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, Object> getDataAsMap() {
        return get(DATA_FIELD) instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, Object> getExt() {
        return get(EXT_FIELD) instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    @Override
    public String getId() {
        Object id = get(ID_FIELD);
        return id == null ? null : id.toString();
    }

    @Override
    public boolean isSuccessful() {
        return Boolean.TRUE.equals(get(SUCCESSFUL_FIELD));
    }

    @Override
    public Map<String, Object> getAdvice(boolean create) {
        return child(ADVICE_FIELD, create);
    }

    @Override
    public Map<String, Object> getDataAsMap(boolean create) {
        return child(DATA_FIELD, create);
    }

    @Override
    public Map<String, Object> getExt(boolean create) {
        return child(EXT_FIELD, create);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> child(String field, boolean create) {
        Object value = get(field);
        if (value instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        if (!create) {
            return null;
        }
        Map<String, Object> result = new HashMap<>(4);
        put(field, result);
        return result;
    }

    @Override
    public void setChannel(String channel) {
        putOrRemove(CHANNEL_FIELD, channel);
    }

    @Override
    public void setClientId(String clientId) {
        putOrRemove(CLIENT_ID_FIELD, clientId);
    }

    @Override
    public void setData(Object data) {
        putOrRemove(DATA_FIELD, data);
    }

    @Override
    public void setId(String id) {
        putOrRemove(ID_FIELD, id);
    }

    @Override
    public void setSuccessful(boolean successful) {
        put(SUCCESSFUL_FIELD, successful);
    }

    private void putOrRemove(String field, Object value) {
        if (value == null) {
            remove(field);
        } else {
            put(field, value);
        }
    }
}
