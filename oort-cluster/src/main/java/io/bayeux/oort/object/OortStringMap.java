package io.bayeux.oort.object;

import io.bayeux.oort.Oort;

/** An {@link OortMap} with string keys: the keys are the same on every node (JSON object keys are strings). */
public class OortStringMap<V> extends OortMap<String, V> {
    public OortStringMap(Oort oort, String name) {
        super(oort, name);
    }
}
