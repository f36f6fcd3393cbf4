package io.bayeux.load;

/** A run that could not be carried out (the clients could not all connect, a server did not start). */
public final class BenchmarkException extends RuntimeException {
    public BenchmarkException(String message) {
        super(message);
    }
}
