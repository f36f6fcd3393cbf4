package io.bayeux.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method told of messages on channels without subscribing to them. On the server:
 * {@code void|boolean m(ServerSession from, ServerMessage.Mutable message, @Param... )} (false
 * vetoes the message); on the client: {@code void m(Message message)}, for meta channels.
 * Channels may be templates such as {@code /chat/{room}}, bound to {@link Param} arguments.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Listener {
    String[] value();

    /** Whether messages the service itself publishes are seen too; default false. */
    boolean receiveOwnPublishes() default false;
}
