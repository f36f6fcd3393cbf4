package io.bayeux.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method {@code void m(Message message, @Param... )} subscribed to channels through the
 * service's session: a real subscription, which a client re-establishes after a re-handshake.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Subscription {
    String[] value();
}
