package io.bayeux.examples;

import io.bayeux.annotation.RemoteCall;
import io.bayeux.annotation.Service;

/**
 * {@code /service/echo}: answers {@code remoteCall("echo", data)} with the same data, to the
 * caller only, with the request's id and {@code successful: true}.
 */
@Service("echo")
public final class EchoService {
    public static final String CHANNEL = "/service/echo";

    @RemoteCall("echo")
    public void echo(RemoteCall.Caller caller, Object data) {
        caller.result(data);
    }
}
