package io.bayeux.api;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The completion of an asynchronous operation: exactly one of {@link #succeed} or
 * {@link #fail} is called, once.
 *
 * @param <C> the type of the result
 */
public interface Promise<C> {
    /** Completes the operation with a result. */
    default void succeed(C result) {
    }

    /** Completes the operation with a failure. */
    default void fail(Throwable failure) {
    }

    /** A promise that ignores its completion. */
    static <T> Promise<T> noop() {
        return new Promise<>() {
        };
    }

    /** A promise that forwards to the given callbacks. */
    static <T> Promise<T> from(Consumer<? super T> success, Consumer<Throwable> failure) {
        Objects.requireNonNull(success, "success");
        Objects.requireNonNull(failure, "failure");
        return new Promise<>() {
            @Override
            public void succeed(T result) {
                success.accept(result);
            }

            @Override
            public void fail(Throwable x) {
                failure.accept(x);
            }
        };
    }

    /** A promise that is also a {@link CompletableFuture}, handy in tests and for blocking callers. */
    class Completable<C> extends CompletableFuture<C> implements Promise<C> {
        @Override
        public void succeed(C result) {
            complete(result);
        }

        @Override
        public void fail(Throwable failure) {
            completeExceptionally(failure);
        }

        /** Adapts this promise to a callback style. */
        public Completable<C> whenDone(BiConsumer<? super C, ? super Throwable> action) {
            whenComplete(action);
            return this;
        }
    }
}
