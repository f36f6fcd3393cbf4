package io.bayeux.annotation;

import io.bayeux.api.server.ServerSession;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method {@code void m(RemoteCall.Caller caller, Object data, @Param... )} answering the
 * clients' {@code remoteCall(target, data)}: it listens on {@code /service/<target>} and
 * replies with {@link Caller#result} or {@link Caller#failure}, at once or later from any thread.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RemoteCall {
    /** The targets, e.g. {@code echo} for {@code /service/echo}. */
    String[] value();

    /** The caller of a remote call: answer it exactly once. */
    interface Caller {
        /** The calling session. */
        ServerSession getServerSession();

        /** Answers successfully with {@code result}. @return false when already answered */
        boolean result(Object result);

        /** Answers with a failure carrying {@code failure} as data. @return false when already answered */
        boolean failure(Object failure);
    }
}
