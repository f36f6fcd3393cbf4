package io.bayeux.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method {@code void m(ConfigurableServerChannel channel)} that configures channels, run as
 * their initializer when they are created, so no message reaches them unconfigured.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Configure {
    /** The channels to configure. */
    String[] value();

    /** Fail processing when a channel already exists; default false. */
    boolean errorIfExists() default false;

    /** Configure a channel that already exists too; default true. */
    boolean configureIfExists() default true;
}
